/**
 * `occ agents …`: an operator's view of a Namespace's Agents through the API — list, get,
 * create, deploy (`--wait` until the revision is active, showing why it is not yet), delete
 * (`--wait` until teardown removed every object and claim) and the revision history.
 */
import { Option, type Command } from "commander";
import { AgentSchema, RevisionSchema } from "../contract/agents.js";
import type { ExecutionModeValue } from "../domain/workloads/inputs.js";
import type { AgentView, RevisionView } from "../contract/agents.js";
import {
  apiClientFrom,
  getOrNull,
  listAll,
  requestAs,
  withApiClientOptions,
} from "./api-client.js";
import type { ApiClient } from "./api-client.js";
import { outputOption, print, render, say, type Column, type OutputFormat } from "./output.js";
import { parseDuration, waitFor, type WaitVerdict } from "./wait.js";

const AGENT_COLUMNS: readonly Column<AgentView>[] = [
  { header: "id", cell: (a) => a.id },
  { header: "name", cell: (a) => a.name },
  { header: "mode", cell: (a) => a.executionMode },
  { header: "status", cell: (a) => a.status },
  { header: "revision", cell: (a) => a.currentRevisionId ?? "-" },
  { header: "reason", cell: (a) => a.statusReason?.code ?? "" },
];

const REVISION_COLUMNS: readonly Column<RevisionView>[] = [
  { header: "id", cell: (r) => r.id },
  { header: "number", cell: (r) => String(r.number) },
  { header: "status", cell: (r) => r.status },
  { header: "reason", cell: (r) => r.statusReason?.code ?? "" },
];

interface Flags {
  server?: string;
  apiKeyFile?: string;
  output: OutputFormat;
  wait?: boolean;
  timeout: string;
}

/** The path parameters of a Namespace's Agent routes, and of one Agent's. */
const inNamespace = (ns: string) => ({ params: { path: { id: ns } } });
const ofAgent = (ns: string, agentId: string) => ({ params: { path: { id: ns, agentId } } });
const AGENT = "/namespaces/{id}/agents/{agentId}";

/** active → done; failed/superseded → failed with the reason; else keep waiting. */
export function revisionVerdict(r: RevisionView | null): WaitVerdict {
  if (r === null)
    return { kind: "failed", message: "the revision is gone (its Agent was deleted)" };
  if (r.status === "active") return { kind: "done" };
  if (r.status === "queued") return { kind: "waiting" };
  const why = r.statusReason === null ? "" : `: ${r.statusReason.code}: ${r.statusReason.message}`;
  return { kind: "failed", message: `revision ${r.number} is ${r.status}${why}` };
}

function revisionProgress(r: RevisionView | null): string {
  if (r === null) return "revision gone";
  const why = r.statusReason === null ? "" : ` — ${r.statusReason.code}: ${r.statusReason.message}`;
  return `revision ${r.number}: ${r.status}${why}`;
}

async function found<T>(answer: Promise<T | null>, what: string): Promise<T> {
  const value = await answer;
  if (value === null) throw new Error(`${what} not found (or deleted)`);
  return value;
}

const getAgent = (api: ApiClient, ns: string, id: string) =>
  getOrNull(api, AgentSchema, AGENT, ofAgent(ns, id));

export function registerAgentsCommands(program: Command): void {
  const agents = program.command("agents").description("a Namespace's Agents and their revisions");
  const client = (flags: Flags) => apiClientFrom(flags);
  const waitOptions = (cmd: Command, what: string) =>
    cmd
      .option("--wait", `wait until ${what}, showing progress`)
      .option("--timeout <duration>", "how long --wait waits", "10m");

  withApiClientOptions(agents.command("list <namespace-id>").description("list the Agents"))
    .addOption(outputOption())
    .action(async (ns: string, flags: Flags) => {
      print(
        render(
          flags.output,
          await listAll(
            await client(flags),
            AgentSchema,
            "/namespaces/{id}/agents",
            inNamespace(ns),
          ),
          AGENT_COLUMNS,
        ),
      );
    });

  withApiClientOptions(
    agents.command("get <namespace-id> <agent-id>").description("show one Agent"),
  )
    .addOption(outputOption())
    .action(async (ns: string, id: string, flags: Flags) => {
      const agent = await found(getAgent(await client(flags), ns, id), `Agent ${id}`);
      print(render(flags.output, agent, AGENT_COLUMNS));
    });

  withApiClientOptions(
    agents.command("create <namespace-id> <name>").description("create an Agent (deploy it next)"),
  )
    .requiredOption("--configuration <id>", "the Configuration it runs (cfg_…)")
    .addOption(
      new Option("--mode <mode>", "execution mode")
        .choices(["embedded", "dedicated"])
        .default("embedded"),
    )
    .option("--service-account <id>", "the ServiceAccount whose credential it uses")
    .addOption(outputOption())
    .action(
      async (
        ns: string,
        name: string,
        flags: Flags & {
          configuration: string;
          mode: ExecutionModeValue;
          serviceAccount?: string;
        },
      ) => {
        const body = {
          name,
          configurationId: flags.configuration,
          executionMode: flags.mode,
          ...(flags.serviceAccount === undefined ? {} : { serviceAccountId: flags.serviceAccount }),
        };
        const created = await requestAs(
          await client(flags),
          AgentSchema,
          "POST",
          "/namespaces/{id}/agents",
          { ...inNamespace(ns), body },
        );
        print(render(flags.output, created, AGENT_COLUMNS));
      },
    );

  waitOptions(
    withApiClientOptions(
      agents
        .command("deploy <namespace-id> <agent-id>")
        .description("admit a new revision (a snapshot of the Configuration) and roll it out"),
    ),
    "the revision is active",
  )
    .addOption(outputOption())
    .action(async (ns: string, id: string, flags: Flags) => {
      const api = await client(flags);
      let revision = await requestAs(
        api,
        RevisionSchema,
        "POST",
        `${AGENT}/deploy`,
        ofAgent(ns, id),
      );
      if (flags.wait === true) {
        const path = { params: { path: { id: ns, agentId: id, revisionId: revision.id } } };
        revision =
          (await waitFor({
            what: `revision ${revision.number} of ${id} to become active`,
            poll: () => getOrNull(api, RevisionSchema, `${AGENT}/revisions/{revisionId}`, path),
            judge: revisionVerdict,
            progress: revisionProgress,
            timeoutMs: parseDuration(flags.timeout),
            say,
          })) ?? revision;
      }
      print(render(flags.output, revision, REVISION_COLUMNS));
    });

  waitOptions(
    withApiClientOptions(
      agents.command("delete <namespace-id> <agent-id>").description("tear an Agent down"),
    ),
    "every object and claim is removed",
  ).action(async (ns: string, id: string, flags: Flags) => {
    const api = await client(flags);
    await api.request("DELETE", AGENT, ofAgent(ns, id));
    say(`${id}: deletion accepted`);
    if (flags.wait !== true) return;
    await waitFor({
      what: `${id} to be torn down`,
      poll: () => getAgent(api, ns, id),
      judge: (a) => (a === null ? { kind: "done" } : { kind: "waiting" }),
      progress: (a) =>
        a === null
          ? `${id}: deleted`
          : `${id}: ${a.status}${a.statusReason === null ? "" : ` — ${a.statusReason.code}: ${a.statusReason.message}`}`,
      timeoutMs: parseDuration(flags.timeout),
      say,
    });
  });

  withApiClientOptions(
    agents
      .command("revisions <namespace-id> <agent-id>")
      .description("an Agent's revision history"),
  )
    .addOption(outputOption())
    .action(async (ns: string, id: string, flags: Flags) => {
      const list = await listAll(
        await client(flags),
        RevisionSchema,
        `${AGENT}/revisions`,
        ofAgent(ns, id),
      );
      print(render(flags.output, list, REVISION_COLUMNS));
    });
}
