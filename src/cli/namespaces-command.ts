/**
 * `occ namespaces …`: the operator's view of platform Namespaces through the API — list, get,
 * create, retry, delete (each with `-o table|json|yaml`; create/retry/delete with `--wait` and
 * visible progress) and `grants`, which prints the RoleBindings an operator applies in the
 * tenant's Kubernetes namespace: every external namespace, and managed ones on a cluster
 * installed without the chart's admission policies (with them the worker binds its own in the
 * managed namespaces it creates).
 */
import { Option, type Command } from "commander";
import { NamespaceSchema, type NamespaceView } from "../contract/namespaces.js";
import { grantsManifest } from "../drivers/kubernetes/preflight-reads.js";
import {
  apiClientFrom,
  getOrNull,
  listAll,
  requestAs,
  withApiClientOptions,
} from "./api-client.js";
import type { ApiClient } from "./api-client.js";
import { outputOption, print, render, say, type Column, type OutputFormat } from "./output.js";
import { registerPreflightCommand } from "./preflight-command.js";
import { registerOrphanCommands } from "./orphans-command.js";
import { grantHintOf } from "./grant-hint.js";
import { existingNamespaceFlag } from "./namespace-flags.js";
import { parseSubject } from "./subjects.js";

export { grantsManifest, parseSubject };
import { parseDuration, waitFor, type WaitVerdict } from "./wait.js";
import { isClosedStatus } from "../domain/placement/namespace-status.js";

const COLUMNS: readonly Column<NamespaceView>[] = [
  { header: "id", cell: (n) => n.id },
  { header: "name", cell: (n) => n.name },
  { header: "status", cell: (n) => n.status },
  { header: "mode", cell: (n) => n.placement.mode },
  { header: "kubernetes namespace", cell: (n) => n.placement.kubernetesNamespace ?? "-" },
  { header: "reason", cell: (n) => n.statusReason?.code ?? "" },
];

/**
 * `get` shows one Namespace in full: beside the list's columns, the recorded and observed
 * namespace UIDs (they differ when the namespace was recreated), when the worker last reached
 * a verdict, since when the reason holds, and its message.
 */
const DETAIL_COLUMNS: readonly Column<NamespaceView>[] = [
  ...COLUMNS,
  { header: "uid", cell: (n) => n.placement.uid ?? "-" },
  { header: "observed uid", cell: (n) => n.placement.observedUid ?? "-" },
  { header: "last reconciled", cell: (n) => n.lastReconciledAt ?? "never" },
  { header: "since", cell: (n) => n.statusReason?.since ?? "" },
  { header: "message", cell: (n) => n.statusReason?.message ?? "" },
];

interface ClientFlags {
  server?: string;
  apiKeyFile?: string;
  output: OutputFormat;
}

interface WaitFlags extends ClientFlags {
  wait?: boolean;
  timeout: string;
}

function progressOf(n: NamespaceView): string {
  const reason =
    n.statusReason === null ? "" : ` — ${n.statusReason.code}: ${n.statusReason.message}`;
  const hint = grantHintOf(n);
  return `${n.id}: ${n.status}${reason}${hint === null ? "" : `\n  ${hint}`}`;
}

/** ready → done; failed → failed with the reason (which states the fix); else keep waiting. */
export function readyVerdict(n: NamespaceView | null): WaitVerdict {
  if (n === null) return { kind: "failed", message: "the Namespace was deleted while waiting" };
  if (n.status === "ready") return { kind: "done" };
  if (isClosedStatus(n.status)) {
    const why =
      n.statusReason === null ? "" : `: ${n.statusReason.code}: ${n.statusReason.message}`;
    return { kind: "failed", message: `${n.id} is ${n.status}${why}` };
  }
  return { kind: "waiting" };
}

/** The path parameter of one Namespace's routes. */
const namespace = (id: string) => ({ params: { path: { id } } });

const getNamespace = (client: ApiClient, id: string) =>
  getOrNull(client, NamespaceSchema, "/namespaces/{id}", namespace(id));

function untilReady(api: ApiClient, id: string, timeout: string): Promise<NamespaceView | null> {
  return waitFor({
    what: `${id} to become ready`,
    poll: () => getNamespace(api, id),
    judge: readyVerdict,
    progress: (n) => (n === null ? `${id}: deleted` : progressOf(n)),
    timeoutMs: parseDuration(timeout),
    say,
  });
}

async function untilDeleted(api: ApiClient, id: string, timeout: string): Promise<void> {
  await waitFor({
    what: `${id} to be deleted`,
    poll: () => getNamespace(api, id),
    judge: (n) =>
      n === null
        ? { kind: "done" }
        : n.status === "failed"
          ? { kind: "failed", message: progressOf(n) }
          : { kind: "waiting" },
    progress: (n) => (n === null ? `${id}: deleted` : progressOf(n)),
    timeoutMs: parseDuration(timeout),
    say,
  });
}

export function registerNamespacesCommands(program: Command): void {
  const ns = program
    .command("namespaces")
    .alias("ns")
    .description("platform Namespaces: where each tenant is placed and why it is not ready");
  const client = (flags: ClientFlags) => apiClientFrom(flags);
  registerPreflightCommand(ns);
  registerOrphanCommands(ns, untilReady);

  withApiClientOptions(ns.command("list").description("list the Namespaces you may read"))
    .addOption(outputOption())
    .action(async (flags: ClientFlags) => {
      print(
        render(
          flags.output,
          await listAll(await client(flags), NamespaceSchema, "/namespaces"),
          COLUMNS,
        ),
      );
    });

  withApiClientOptions(ns.command("get <id>").description("show one Namespace"))
    .addOption(outputOption())
    .action(async (id: string, flags: ClientFlags) => {
      const n = await getNamespace(await client(flags), id);
      if (n === null) throw new Error(`Namespace ${id} not found (or deleted)`);
      print(render(flags.output, n, DETAIL_COLUMNS));
    });

  withApiClientOptions(
    ns
      .command("create <name>")
      .description("create a Namespace: managed, or in an existing namespace you select"),
  )
    .option("--existing-namespace <k8s-namespace>", "adopt this operator-owned namespace")
    .option("--wait", "wait until the Namespace is ready, showing progress")
    .option("--timeout <duration>", "how long --wait waits", "10m")
    .addOption(outputOption())
    .action(async (name: string, flags: WaitFlags & { existingNamespace?: string }) => {
      const existingNamespace = existingNamespaceFlag(flags.existingNamespace);
      const api = await client(flags);
      const body = { name, ...(existingNamespace !== undefined ? { existingNamespace } : {}) };
      let n = await requestAs(api, NamespaceSchema, "POST", "/namespaces", { body });
      if (flags.wait === true) n = (await untilReady(api, n.id, flags.timeout)) ?? n;
      print(render(flags.output, n, COLUMNS));
    });

  withApiClientOptions(
    ns
      .command("wait <id>")
      .description("wait until a Namespace is ready (or deleted), showing progress"),
  )
    .addOption(
      new Option("--for <condition>", "what to wait for")
        .choices(["ready", "deleted"])
        .default("ready"),
    )
    .option("--timeout <duration>", "how long to wait", "10m")
    .addOption(outputOption())
    .action(async (id: string, flags: WaitFlags & { for: "ready" | "deleted" }) => {
      const api = await client(flags);
      if (flags.for === "deleted") {
        await untilDeleted(api, id, flags.timeout);
        return;
      }
      const n = await untilReady(api, id, flags.timeout);
      if (n !== null) print(render(flags.output, n, COLUMNS));
    });

  withApiClientOptions(
    ns
      .command("retry <id>")
      .description(
        "retry a failed or degraded Namespace (administrators): every placement check runs again under the same ID",
      ),
  )
    .option("--wait", "wait until the Namespace is ready, showing progress")
    .option("--timeout <duration>", "how long --wait waits", "10m")
    .addOption(outputOption())
    .action(async (id: string, flags: WaitFlags) => {
      const api = await client(flags);
      let n = await requestAs(
        api,
        NamespaceSchema,
        "POST",
        "/namespaces/{id}/retry",
        namespace(id),
      );
      say(`${id}: retry accepted`);
      const { uid: recorded, observedUid: observed } = n.placement;
      if (recorded !== null && observed !== null && recorded !== observed) {
        // The retry does not hold the tenant to the recorded UID (docs/operations.md).
        say(
          `${id}: namespace UID ${recorded} (recorded) → ${observed} (now): the namespace was recreated; the retry re-verifies it and binds the tenant to the namespace as it is now`,
        );
      }
      if (flags.wait === true) {
        n = (await untilReady(api, id, flags.timeout)) ?? n;
        if (recorded !== null && n.placement.uid !== null && n.placement.uid !== recorded) {
          say(`${id}: bound to namespace UID ${n.placement.uid} (was ${recorded})`);
        }
      }
      print(render(flags.output, n, DETAIL_COLUMNS));
    });

  withApiClientOptions(ns.command("delete <id>").description("delete a Namespace"))
    .option("--wait", "wait until teardown finished, showing progress")
    .option("--timeout <duration>", "how long --wait waits", "10m")
    .action(async (id: string, flags: WaitFlags) => {
      const api = await client(flags);
      await api.request("DELETE", "/namespaces/{id}", namespace(id));
      say(`${id}: deletion accepted`);
      if (flags.wait === true) await untilDeleted(api, id, flags.timeout);
    });

  withApiClientOptions(
    ns
      .command("grants <id>")
      .description(
        "print the RoleBindings to apply in the tenant's Kubernetes namespace (kubectl apply -f -)",
      ),
  )
    .option(
      "--worker <subject>",
      "the worker's identity: <namespace>:<serviceaccount> or user:<name>",
      "openclaw-system:occ-worker",
    )
    .option(
      "--api <subject>",
      "the API's identity: <namespace>:<serviceaccount> or user:<name>",
      "openclaw-system:occ-api",
    )
    .option("--openshell", "also bind the OpenShell tenant role to the worker (OpenShell in use)")
    .action(
      async (
        id: string,
        flags: ClientFlags & { worker: string; api: string; openshell?: boolean },
      ) => {
        const n = await getNamespace(await client(flags), id);
        if (n === null) throw new Error(`Namespace ${id} not found (or deleted)`);
        const target = n.placement.kubernetesNamespace;
        if (target === null) {
          throw new Error(`${id} has no Kubernetes namespace yet (${n.status}); retry shortly`);
        }
        print(
          grantsManifest(
            target,
            parseSubject("--worker", flags.worker),
            parseSubject("--api", flags.api),
            flags.openshell === true,
          ),
        );
      },
    );
}
