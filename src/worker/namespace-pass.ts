import type { NamespaceWorkKind } from "../work/namespace-work.js";
import { namespaceIdOfSubject } from "../work/lanes.js";
import { RECONCILER_ACTOR } from "../work/namespace-pass-request.js";
import type { ComputeDriver, PassObserver } from "../drivers/compute.js";
import type { NamespaceEvent } from "../drivers/kubernetes/events.js";
import { isExhausted, type Claim, type WorkQueue } from "../queue/index.js";
import type { Db } from "../store/db.js";
import { getNamespace, placementOf, type NamespaceRecord } from "../store/namespaces.js";
import { reauthorize } from "./reauthorize.js";
import { namespacePassPermissions } from "../services/namespaces/permissions.js";
import { settlePass, type Seen, type Verdict } from "./namespace-settle.js";

export interface NamespacePassDeps {
  readonly db: Db;
  readonly queue: WorkQueue<NamespaceWorkKind>;
  readonly compute: ComputeDriver;
  /**
   * Best effort: one Kubernetes Event on the tenant namespace for every change of status or
   * reason (into pending, degraded or failed, and back to ready). Never awaited for the
   * outcome, never required for success.
   */
  readonly events?: (namespace: string, event: NamespaceEvent) => Promise<unknown>;
  /** Told the kind of every owned object a pass over a bound tenant wrote back (metrics). */
  readonly onRepaired?: (kind: string) => void;
}

/** What one claim came to, for logs and metrics. */
export type PassSummary =
  | { readonly result: "superseded" | "stale" }
  | {
      readonly result: "applied";
      readonly move: "complete" | "defer" | "retry" | "fail";
      readonly code: string | null;
      /** Kinds of the owned objects written back after drift (bound tenants only). */
      readonly repaired?: readonly string[];
    };

/**
 * Whether the Namespace is in a state this work may act on: teardown needs `deleting`; the
 * placement item (a person's request) needs `provisioning`; the system's reconcile items need
 * a bound Namespace (`ready` or `degraded`) — lifecycle.md §1.
 */
function inScope(kind: NamespaceWorkKind, actor: string, record: NamespaceRecord | undefined) {
  if (record === undefined) return false;
  if (kind === "namespace.teardown") return record.status === "deleting";
  return actor === RECONCILER_ACTOR
    ? record.status === "ready" || record.status === "degraded"
    : record.status === "provisioning";
}

/**
 * One level-based pass over a claimed Namespace work item:
 * 1. a Namespace that is no longer in the state the work expects → complete as superseded,
 *    no Driver call;
 * 2. a claim whose attempts were all spent by earlier holders that died → stop, no Driver call;
 * 3. re-authorize the frozen actor against current policy; a revoked grant or a deleted
 *    principal fails the work permanently (and the Namespace, for placement). The system's
 *    reconcile of a bound Namespace adopts nothing new and has no one to re-authorize;
 * 4. call the Compute Driver while the lease is kept alive; a bound Namespace is passed as
 *    such, so drift the operator owns is reported rather than written back;
 * 5. in one transaction: the fenced queue move, the Namespace outcome and its audit event,
 *    then (best effort) the Event. A stale lease (another worker took over) publishes nothing.
 */
export async function runNamespacePass(
  deps: NamespacePassDeps,
  claim: Claim<NamespaceWorkKind>,
): Promise<PassSummary> {
  const { db, queue } = deps;
  const { item, lease } = claim;
  const id = namespaceIdOfSubject(item.subject);
  const record = id === null ? undefined : await getNamespace(db, id);
  if (id === null || record === undefined || !inScope(item.kind, item.actor, record)) {
    const done = await queue.complete(db, lease, {
      code: "SUPERSEDED",
      message: "the Namespace is no longer in the state this work expects",
    });
    return { result: done.outcome === "applied" ? "superseded" : "stale" };
  }
  if (isExhausted(claim)) {
    return settlePass(deps, claim, record, {
      kind: "stopped",
      reason: {
        code: "KUBERNETES_API_UNAVAILABLE",
        message: "every attempt was spent by workers that stopped mid-attempt",
      },
    });
  }
  const placement = placementOf(record);
  const bound = record.status === "ready" || record.status === "degraded";
  if (item.actor !== RECONCILER_ACTOR) {
    const required = namespacePassPermissions(item.kind, id, placement);
    const denied = await reauthorize(db, item.actor, required);
    if (denied !== null)
      return settlePass(deps, claim, record, { kind: "stopped", reason: denied });
  }

  const seen: { namespace?: Seen; repaired: string[] } = { repaired: [] };
  const observer: PassObserver = {
    namespace: (name, uid) => {
      seen.namespace = { name, uid };
    },
    repaired: (kind) => {
      seen.repaired.push(kind);
    },
  };
  const keeper = queue.keepAlive(db, lease);
  let verdict: Verdict;
  try {
    const input = {
      namespaceId: id,
      placement,
      // An administrator's retry places the namespace as it is now (lifecycle.md §4).
      boundUid: record.retryRequestedAt !== null ? null : record.kubernetesUid,
      bound,
      observer,
    };
    verdict =
      item.kind === "namespace.ensure"
        ? {
            kind: "ensure",
            result: await deps.compute.ensureNamespace(input),
            seen: seen.namespace,
          }
        : { kind: "teardown", result: await deps.compute.deleteNamespace(input) };
  } finally {
    await keeper.stop();
  }
  const summary = await settlePass(deps, { item, lease: keeper.current() }, record, verdict);
  // The writes happened whatever the settle found (a stale lease only withholds the record).
  for (const kind of seen.repaired) deps.onRepaired?.(kind);
  if (summary.result !== "applied" || seen.repaired.length === 0) return summary;
  return { ...summary, repaired: seen.repaired };
}
