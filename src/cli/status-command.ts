/**
 * `occ status`: is the API ready (database reachable, every migration applied), what each
 * worker last reported — its heartbeat, and the startup check that refused with its code and
 * message — and which Namespaces wait for a RoleBinding the operator grants (a missing tenant
 * RoleBinding does not stop the processes; it keeps the Namespace pending, or the API answers
 * 503), with the command that grants it. Exit code 1 when the API is not ready or the most recent worker report is a
 * refusal.
 */
import { Type } from "@sinclair/typebox";
import type { Command } from "commander";
import { NamespaceSchema } from "../contract/namespaces.js";
import { WorkerReportSchema, type WorkerReportView } from "../contract/workers.js";
import {
  apiClientFrom,
  ApiRequestError,
  listAll,
  requestAs,
  withApiClientOptions,
  type ApiClientOptions,
} from "./api-client.js";
import { grantHintOf } from "./grant-hint.js";
import { bodyOf, errorOf, NOT_JSON, occHttpClient, sendText } from "./openapi-client.js";
import { outputOption, print, render, type Column, type OutputFormat } from "./output.js";
import { messageOf } from "../domain/input/unknowns.js";

function ageOf(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 120) return `${seconds}s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m ago`;
  return `${Math.round(seconds / 3600)}h ago`;
}

function columns(now: number): Column<WorkerReportView>[] {
  return [
    { header: "worker", cell: (w) => w.workerId },
    { header: "state", cell: (w) => w.state },
    {
      header: "last heartbeat",
      cell: (w) => `${w.lastHeartbeatAt} (${ageOf(w.lastHeartbeatAt, now)})`,
    },
    {
      header: "refusal",
      cell: (w) =>
        w.refusal === null ? "-" : `${w.refusal.check} ${w.refusal.code} at ${w.refusal.at}`,
    },
  ];
}

/** `ready`, or the code and message `/readyz` answered with. */
async function readiness(server: string): Promise<{ ready: boolean; text: string }> {
  try {
    const answer = await sendText(occHttpClient(server), "GET", "/readyz");
    const res = answer.response;
    const json = bodyOf(answer);
    if (json === NOT_JSON) throw new Error(`HTTP ${res.status} with a body that is not JSON`);
    if (res.ok) return { ready: true, text: "ready" };
    const error = errorOf(json);
    return {
      ready: false,
      text: `not ready: ${error.code ?? `HTTP_${res.status}`}: ${error.message ?? ""}`,
    };
  } catch (err) {
    return { ready: false, text: `unreachable at ${server}: ${messageOf(err)}` };
  }
}

/** The code the API answers a tenant operation with while its own RoleBinding is missing. */
const PERMISSION_MISSING = "KUBERNETES_PERMISSION_MISSING";

/** A Namespace waiting for an operator-granted RoleBinding, and the command that grants it. */
interface WaitingNamespace {
  readonly id: string;
  readonly reason: string;
  readonly grant: string;
}

/**
 * The Namespaces the caller may read that wait for a RoleBinding — the worker's (the
 * Namespace's status) or, in a ready preprovisioned Namespace, the API's ({@link apiGrantProbe});
 * none if it may not list.
 */
async function waitingForGrants(client: Awaited<ReturnType<typeof apiClientFrom>>) {
  let all;
  try {
    all = await listAll(client, NamespaceSchema, "/namespaces");
  } catch (err) {
    if (err instanceof ApiRequestError) return [];
    throw err;
  }
  const waiting = all.flatMap((n): WaitingNamespace[] => {
    const grant = grantHintOf(n);
    if (grant === null || n.statusReason === null) return [];
    return [{ id: n.id, reason: `${n.statusReason.code}: ${n.statusReason.message}`, grant }];
  });
  const ready = all.filter((n) => n.status === "ready" && n.placement.mode === "preprovisioned");
  const api = await Promise.all(ready.map((n) => apiGrantProbe(client, n.id)));
  return [...waiting, ...api.flatMap((w) => (w === null ? [] : [w]))];
}

/**
 * The API's own tenant RoleBinding in a preprovisioned Namespace (the worker's is reported by
 * the Namespace's status): a one-item Configuration list, which the API answers 503
 * KUBERNETES_PERMISSION_MISSING until the operator grants it. Any other answer: nothing to list.
 */
async function apiGrantProbe(
  client: Awaited<ReturnType<typeof apiClientFrom>>,
  id: string,
): Promise<WaitingNamespace | null> {
  try {
    await client.request("GET", "/namespaces/{id}/configurations", {
      params: { path: { id }, query: { limit: 1 } },
    });
    return null;
  } catch (err) {
    if (!(err instanceof ApiRequestError) || err.code !== PERMISSION_MISSING) return null;
    return {
      id,
      reason: `${err.message} (the API's Configuration and Secret operations answer 503)`,
      grant: `grant it: occ preprovisioned render --namespace-id ${id} --values my-values.yaml -n <release-ns> | kubectl apply -f -`,
    };
  }
}

export function registerStatusCommand(program: Command): void {
  withApiClientOptions(
    program
      .command("status")
      .description("the API's readiness and every worker's last heartbeat and startup refusal"),
  )
    .addOption(outputOption())
    .action(async (flags: ApiClientOptions & { output: OutputFormat }) => {
      const api = await apiClientFrom(flags);
      const ready = await readiness(api.server);
      let workers: WorkerReportView[];
      try {
        workers = await requestAs(api, Type.Array(WorkerReportSchema), "GET", "/workers");
      } catch (err) {
        if (!(err instanceof ApiRequestError)) throw err;
        throw new Error(`api ${ready.text}; GET /workers: ${err.message}`);
      }
      const waiting = await waitingForGrants(api);
      if (flags.output === "table") {
        print(`api: ${ready.text}`);
        print(
          workers.length === 0
            ? "workers: none has reported yet (is `occ worker` running against this database?)"
            : render("table", workers, columns(Date.now())),
        );
        for (const w of workers) {
          if (w.refusal === null) continue;
          print(`\n${w.workerId} refused to start (${w.refusal.check}, ${w.refusal.code}):`);
          print(w.refusal.message.replace(/^/gm, "  "));
        }
        for (const n of waiting) {
          print(`\n${n.id} waits for a RoleBinding (${n.reason})\n  ${n.grant}`);
        }
      } else {
        print(render(flags.output, { api: ready, workers, waitingForRoleBindings: waiting }, []));
      }
      if (!ready.ready || workers[0]?.state === "refused") process.exitCode = 1;
    });
}
