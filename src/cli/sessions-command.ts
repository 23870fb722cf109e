/**
 * The administrator's sign-in commands (issue 42): `occ principals set-password <id>` (the
 * password from `--password-file`, `-` for standard input, or a prompt without echo),
 * `occ sessions list <principal-id>` and `occ sessions revoke <session-id>`.
 */
import type { Command } from "commander";
import { SessionSchema, type SessionView } from "../contract/auth.js";
import { apiClientFrom, listAll, requestAs, withApiClientOptions } from "./api-client.js";
import type { ApiClientOptions } from "./api-client.js";
import { outputOption, print, render, type Column, type OutputFormat } from "./output.js";
import { passwordFromFile, promptPassword } from "./password-input.js";

const COLUMNS: readonly Column<SessionView>[] = [
  { header: "id", cell: (s) => s.id },
  { header: "method", cell: (s) => s.method },
  { header: "created", cell: (s) => s.createdAt },
  { header: "last seen", cell: (s) => s.lastSeenAt },
  { header: "expires", cell: (s) => s.expiresAt },
  { header: "client", cell: (s) => s.clientAddress ?? "" },
];

export function registerSessionCommands(program: Command): void {
  const principals =
    program.commands.find((c) => c.name() === "principals") ??
    program.command("principals").description("users and service principals");
  withApiClientOptions(
    principals
      .command("set-password <principal-id>")
      .description("set or reset a user's password; the user's sessions end")
      .option("--password-file <file>", "read the password from this file (- for standard input)"),
  ).action(async (id: string, flags: ApiClientOptions & { passwordFile?: string }) => {
    const password =
      flags.passwordFile === undefined
        ? await promptPassword(`new password for ${id}: `, "--password-file")
        : await passwordFromFile(flags.passwordFile, "--password-file");
    const client = await apiClientFrom(flags);
    await client.request("PUT", "/principals/{id}/password", {
      params: { path: { id } },
      body: { password },
    });
    console.log(`password of ${id} set; its sessions have ended`);
  });

  const sessions = program.command("sessions").description("people's signed-in sessions");
  withApiClientOptions(
    sessions
      .command("list <principal-id>")
      .description("a principal's live sessions")
      .addOption(outputOption()),
  ).action(async (id: string, flags: ApiClientOptions & { output: OutputFormat }) => {
    const client = await apiClientFrom(flags);
    const items = await listAll(client, SessionSchema, "/principals/{id}/sessions", {
      params: { path: { id } },
    });
    print(render(flags.output, items, COLUMNS));
  });

  withApiClientOptions(
    sessions
      .command("revoke <session-id>")
      .description("end a session; every API process refuses it within a second"),
  ).action(async (id: string, flags: ApiClientOptions) => {
    const client = await apiClientFrom(flags);
    const s = await requestAs(client, SessionSchema, "DELETE", "/sessions/{id}", {
      params: { path: { id } },
    });
    console.log(`session ${s.id} of ${s.principalId} revoked`);
  });
}
