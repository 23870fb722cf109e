/**
 * `occ identities …`: an administrator's view of a user principal's external identities
 * (issue 42) through the API — list, link (issuer + subject) and unlink.
 */
import { Type } from "@sinclair/typebox";
import type { Command } from "commander";
import { ExternalIdentitySchema, type ExternalIdentityView } from "../contract/identities.js";
import { apiClientFrom, requestAs, withApiClientOptions } from "./api-client.js";
import { outputOption, print, render, say, type Column, type OutputFormat } from "./output.js";

const COLUMNS: readonly Column<ExternalIdentityView>[] = [
  { header: "issuer", cell: (i) => i.issuer },
  { header: "subject", cell: (i) => i.subject },
  { header: "email", cell: (i) => i.email ?? "" },
  { header: "last sign-in", cell: (i) => i.lastSignInAt ?? "never" },
];

interface Flags {
  server?: string;
  apiKeyFile?: string;
  output: OutputFormat;
}
interface KeyFlags extends Flags {
  issuer: string;
  subject: string;
}

const IDENTITIES = "/principals/{id}/identities";
const principal = (id: string) => ({ path: { id } });

export function registerIdentitiesCommands(program: Command): void {
  const identities = program
    .command("identities")
    .description("external identities (OIDC, Google) of user principals");

  withApiClientOptions(
    identities.command("list <principal-id>").description("list a principal's identities"),
  )
    .addOption(outputOption())
    .action(async (id: string, flags: Flags) => {
      const found = await requestAs(
        await apiClientFrom(flags),
        Type.Array(ExternalIdentitySchema),
        "GET",
        IDENTITIES,
        { params: principal(id) },
      );
      print(render(flags.output, found, COLUMNS));
    });

  withApiClientOptions(
    identities
      .command("link <principal-id>")
      .description("link an identity (the provider's issuer and subject) to a user principal"),
  )
    .requiredOption("--issuer <url>", "the provider's issuer, exactly as its ID tokens state it")
    .requiredOption("--subject <sub>", "the person's subject (`sub`) at that provider")
    .option("--email <email>", "the person's e-mail, for people to read (never matched)")
    .addOption(outputOption())
    .action(async (id: string, flags: KeyFlags & { email?: string }) => {
      const linked = await requestAs(
        await apiClientFrom(flags),
        ExternalIdentitySchema,
        "POST",
        IDENTITIES,
        {
          params: principal(id),
          body: {
            issuer: flags.issuer,
            subject: flags.subject,
            ...(flags.email === undefined ? {} : { email: flags.email }),
          },
        },
      );
      print(render(flags.output, linked, COLUMNS));
    });

  withApiClientOptions(
    identities.command("unlink <principal-id>").description("unlink an identity from a principal"),
  )
    .requiredOption("--issuer <url>", "the provider's issuer")
    .requiredOption("--subject <sub>", "the person's subject at that provider")
    .action(async (id: string, flags: KeyFlags) => {
      await requestAs(await apiClientFrom(flags), ExternalIdentitySchema, "DELETE", IDENTITIES, {
        params: { ...principal(id), query: { issuer: flags.issuer, subject: flags.subject } },
      });
      say(`unlinked ${flags.issuer} ${flags.subject} from ${id}`);
    });
}
