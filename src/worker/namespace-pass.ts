import {
  currentManagedName,
  type DeleteNamespaceResult,
  type EnsureNamespaceResult,
  type NamespaceId,
} from "../domain/index.js";
import type { NamespaceWorkKind } from "../occ/namespace-work.js";
import type { ComputeDriver } from "../drivers/compute.js";
import type { NamespaceEvent } from "../drivers/kubernetes/events.js";
import { isExhausted, type Claim, type WorkQueue, type WorkState } from "../queue/index.js";
import type { Db, Queryable } from "../store/db.js";
import { appendAuditEvent } from "../store/audit-events.js";
import {
  applyProvisioningOutcome,
  applyTeardownOutcome,
  type ProvisioningOutcome,
  type TeardownOutcome,
} from "../store/namespace-outcomes.js";
import type { StatusReasonInput } from "../store/namespace-vocabulary.js";
import { getNamespace, placementOf, type NamespaceRecord } from "../store/namespaces.js";
import {
  provisioningOutcomeFor,
  queueMoveFor,
  teardownOutcomeFor,
  type QueueMove,
} from "./outcome-table.js";
import { reauthorize, requiredPermissions } from "./reauthorize.js";

export interface NamespacePassDeps {
  readonly db: Db;
  readonly queue: WorkQueue<NamespaceWorkKind>;
  readonly compute: ComputeDriver;
  /**
   * Best effort: a Kubernetes Event on the tenant namespace when a pass becomes pending or
   * fails for a new reason. Never awaited for the outcome, never required for success.
   */
  readonly events?: (namespace: string, event: NamespaceEvent) => Promise<unknown>;
}

/** What one claim came to, for logs and metrics. */
export type PassSummary =
  | { readonly result: "superseded" | "stale" }
  | { readonly result: "applied"; readonly move: QueueMove; readonly code: string | null };

const EXPECTED_STATUS = { "namespace.ensure": "provisioning", "namespace.teardown": "deleting" };

/**
 * One level-based pass over a claimed Namespace work item:
 * 1. a Namespace that is no longer in the state the work expects → complete as superseded,
 *    no Driver call;
 * 2. a claim whose attempts were all spent by earlier holders that died → fail, no Driver call;
 * 3. re-authorize the frozen actor against current policy; a revoked grant or a deleted
 *    principal fails the work permanently (and the Namespace, for placement);
 * 4. call the Compute Driver while the lease is kept alive;
 * 5. in one transaction: the fenced queue move, the Namespace outcome and its audit event. A
 *    stale lease (another worker took over) publishes nothing.
 */
export async function runNamespacePass(
  deps: NamespacePassDeps,
  claim: Claim<NamespaceWorkKind>,
): Promise<PassSummary> {
  const { db, queue } = deps;
  const { item, lease } = claim;
  const id = item.subject.replace(/^namespace:/, "") as NamespaceId;
  const record = await getNamespace(db, id);
  if (record?.status !== EXPECTED_STATUS[item.kind]) {
    const done = await queue.complete(db, lease, {
      code: "SUPERSEDED",
      message: "the Namespace is no longer in the state this work expects",
    });
    return { result: done.outcome === "applied" ? "superseded" : "stale" };
  }
  if (isExhausted(claim)) {
    return settle(deps, claim, record, {
      kind: "stopped",
      reason: {
        code: "KUBERNETES_API_UNAVAILABLE",
        message: "every attempt was spent by workers that stopped mid-attempt",
      },
    });
  }
  const placement = placementOf(record);
  const denied = await reauthorize(db, item.actor, requiredPermissions(item.kind, id, placement));
  if (denied !== null) return settle(deps, claim, record, { kind: "stopped", reason: denied });

  const keeper = queue.keepAlive(db, lease);
  let verdict: Verdict;
  try {
    const input = { namespaceId: id, placement, boundUid: record.kubernetesUid };
    verdict =
      item.kind === "namespace.ensure"
        ? { kind: "ensure", result: await deps.compute.ensureNamespace(input) }
        : { kind: "teardown", result: await deps.compute.deleteNamespace(input) };
  } finally {
    await keeper.stop();
  }
  const summary = await settle(deps, { item, lease: keeper.current() }, record, verdict);
  announce(deps, record, verdict, summary);
  return summary;
}

/** The Event for a new pending or failure reason (see `NamespacePassDeps.events`). */
function announce(
  deps: NamespacePassDeps,
  record: NamespaceRecord,
  verdict: Verdict,
  summary: PassSummary,
): void {
  const reason = reasonOf(verdict);
  if (deps.events === undefined || summary.result !== "applied" || reason === null) return;
  if (reason.code === record.statusCode) return;
  const target =
    record.kubernetesNamespace ?? record.existingNamespace ?? currentManagedName(record.id);
  void deps.events(target, {
    type: verdict.kind !== "stopped" && verdict.result.outcome === "pending" ? "Normal" : "Warning",
    reason: reason.code,
    message: reason.message,
  });
}

/** What the pass concluded: a Driver result, or a stop before the Driver was called. */
type Verdict =
  | { readonly kind: "ensure"; readonly result: EnsureNamespaceResult }
  | { readonly kind: "teardown"; readonly result: DeleteNamespaceResult }
  | { readonly kind: "stopped"; readonly reason: StatusReasonInput };

function reasonOf(verdict: Verdict): StatusReasonInput | null {
  if (verdict.kind === "stopped") return verdict.reason;
  const r = verdict.result;
  return r.outcome === "ready" || r.outcome === "deleted"
    ? null
    : { code: r.code, message: r.reason };
}

/** Step 5: the fenced move, then the Namespace outcome and audit, in one transaction. */
async function settle(
  deps: NamespacePassDeps,
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  verdict: Verdict,
): Promise<PassSummary> {
  const { queue } = deps;
  const move: QueueMove = verdict.kind === "stopped" ? "fail" : queueMoveFor(verdict.result);
  const reason = reasonOf(verdict);
  return deps.db.transaction(async (tx) => {
    const moved =
      move === "complete"
        ? await queue.complete(tx, claim.lease, reason ?? undefined)
        : await queue[move](tx, claim.lease, reason ?? unreachable());
    if (moved.outcome === "stale") return { result: "stale" } as const;
    const to = await applyNamespaceOutcome(tx, claim, record, verdict, moved.item.state);
    await audit(tx, claim, record, to, reason);
    return { result: "applied", move, code: reason?.code ?? null } as const;
  });
}

async function applyNamespaceOutcome(
  tx: Queryable,
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  verdict: Verdict,
  workState: WorkState,
): Promise<string> {
  if (claim.item.kind === "namespace.ensure") {
    const outcome: ProvisioningOutcome =
      verdict.kind === "ensure"
        ? provisioningOutcomeFor(verdict.result, workState)
        : { to: "failed", reason: reasonOf(verdict) ?? unreachable() };
    await applyProvisioningOutcome(tx, record.id, outcome);
    return outcome.to;
  }
  const outcome: TeardownOutcome =
    verdict.kind === "teardown"
      ? teardownOutcomeFor(verdict.result)
      : { to: "deleting", reason: reasonOf(verdict) ?? unreachable() };
  await applyTeardownOutcome(tx, record.id, outcome);
  return outcome.to;
}

function unreachable(): never {
  throw new Error("every pending, failed or stopped pass has a reason");
}

/**
 * A lifecycle audit event whenever the Namespace's status or status code changes (a repeated
 * pending pass with the same reason is not a new event).
 */
async function audit(
  tx: Queryable,
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  to: string,
  reason: StatusReasonInput | null,
): Promise<void> {
  if (to === record.status && (reason?.code ?? null) === record.statusCode) return;
  const failure =
    to === "failed" ||
    (reason !== null &&
      reason.code !== "KUBERNETES_PERMISSION_PENDING" &&
      reason.code !== "KUBERNETES_NAMESPACE_PENDING");
  await appendAuditEvent(tx, {
    kind: "lifecycle",
    actor: claim.item.actor,
    action:
      claim.item.kind === "namespace.ensure"
        ? "namespaces.lifecycle.ensure"
        : "namespaces.lifecycle.teardown",
    resourceKind: "namespace",
    resourceId: record.id,
    outcome: failure ? "failure" : "success",
    details: { to, workItem: claim.item.id, ...(reason !== null ? { code: reason.code } : {}) },
  });
}
