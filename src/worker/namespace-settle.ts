/**
 * Step 5 of a Namespace pass: the fenced queue move, the Namespace's new status and its audit
 * event in one transaction, then — best effort, outside it — one Kubernetes Event when the
 * status or its reason changed (lifecycle.md §2).
 */
import {
  boundVerdictFor,
  currentManagedName,
  type DeleteNamespaceResult,
  type EnsureNamespaceResult,
} from "../domain/index.js";
import type { NamespaceWorkKind } from "../work/namespace-work.js";
import type { Claim, WorkState } from "../queue/index.js";
import type { Queryable } from "../store/db.js";
import { appendAuditEvent } from "../store/audit-events.js";
import { applyBoundOutcome } from "../store/namespace-lifecycle.js";
import { applyProvisioningOutcome, applyTeardownOutcome } from "../store/namespace-outcomes.js";
import type { NamespaceStatus, StatusReasonInput } from "../store/namespace-vocabulary.js";
import type { NamespaceRecord } from "../store/namespaces.js";
import type { NamespacePassDeps, PassSummary } from "./namespace-pass.js";
import {
  boundQueueMoveFor,
  provisioningOutcomeFor,
  queueMoveFor,
  teardownOutcomeFor,
  type QueueMove,
} from "./outcome-table.js";

/** The tenant's Kubernetes namespace as a pass read it (`uid: null`: absent). */
export interface Seen {
  readonly name: string;
  readonly uid: string | null;
}

/** What the pass concluded: a Driver result, or a stop before the Driver was called. */
export type Verdict =
  | {
      readonly kind: "ensure";
      readonly result: EnsureNamespaceResult;
      readonly seen: Seen | undefined;
    }
  | { readonly kind: "teardown"; readonly result: DeleteNamespaceResult }
  | { readonly kind: "stopped"; readonly reason: StatusReasonInput };

/** The Namespace after the pass: its status and reason code. */
interface Landed {
  readonly status: NamespaceStatus | "tombstoned";
  readonly reason: StatusReasonInput | null;
}

function reasonOf(verdict: Verdict): StatusReasonInput | null {
  if (verdict.kind === "stopped") return verdict.reason;
  const r = verdict.result;
  return r.outcome === "ready" || r.outcome === "deleted"
    ? null
    : { code: r.code, message: r.reason };
}

function isBound(record: NamespaceRecord): boolean {
  return record.status === "ready" || record.status === "degraded";
}

/** The fenced move, the Namespace outcome and its audit in one transaction; then the Event. */
export async function settlePass(
  deps: NamespacePassDeps,
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  verdict: Verdict,
): Promise<PassSummary> {
  const { queue } = deps;
  const move: QueueMove =
    verdict.kind === "stopped"
      ? "fail"
      : verdict.kind === "ensure" && isBound(record)
        ? boundQueueMoveFor(verdict.result)
        : queueMoveFor(verdict.result);
  const reason = reasonOf(verdict);
  const settled = await deps.db.transaction(async (tx) => {
    const moved =
      move === "complete"
        ? await queue.complete(tx, claim.lease, reason ?? undefined)
        : await queue[move](tx, claim.lease, reason ?? unreachable());
    if (moved.outcome === "stale") return null;
    const landed = await applyNamespaceOutcome(tx, claim, record, verdict, moved.item.state);
    if (changed(record, landed)) await audit(tx, claim, record, landed);
    return landed;
  });
  if (settled === null) return { result: "stale" };
  if (changed(record, settled)) announce(deps, record, verdict, settled);
  return { result: "applied", move, code: reason?.code ?? null };
}

async function applyNamespaceOutcome(
  tx: Queryable,
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  verdict: Verdict,
  workState: WorkState,
): Promise<Landed> {
  if (claim.item.kind === "namespace.teardown") {
    const outcome =
      verdict.kind === "teardown"
        ? teardownOutcomeFor(verdict.result)
        : { to: "deleting" as const, reason: reasonOf(verdict) ?? unreachable() };
    await applyTeardownOutcome(tx, record.id, outcome);
    return outcome.to === "tombstoned"
      ? { status: "tombstoned", reason: null }
      : { status: "deleting", reason: outcome.reason };
  }
  if (isBound(record)) {
    // A stop (attempts spent by dead workers) or a transient failure is no verdict.
    if (verdict.kind !== "ensure") return { status: record.status, reason: currentReason(record) };
    const bound = boundVerdictFor(verdict.result);
    if (bound.to === "unchanged") return { status: record.status, reason: currentReason(record) };
    const observedUid = verdict.seen?.uid;
    const reason = bound.to === "degraded" ? { code: bound.code, message: bound.message } : null;
    await applyBoundOutcome(tx, record.id, {
      ...(reason === null ? { to: "ready" } : { to: "degraded", reason }),
      ...(observedUid !== undefined ? { observedUid } : {}),
    });
    return { status: bound.to, reason };
  }
  const outcome =
    verdict.kind === "ensure"
      ? provisioningOutcomeFor(verdict.result, workState, verdict.seen)
      : { to: "failed" as const, reason: reasonOf(verdict) ?? unreachable() };
  await applyProvisioningOutcome(tx, record.id, outcome);
  return { status: outcome.to, reason: outcome.to === "ready" ? null : outcome.reason };
}

function currentReason(record: NamespaceRecord): StatusReasonInput | null {
  return record.statusCode === null
    ? null
    : { code: record.statusCode, message: record.statusReason ?? record.statusCode };
}

/** A new status or a new reason code (a repeated pending pass with one reason is not). */
function changed(record: NamespaceRecord, landed: Landed): boolean {
  return landed.status !== record.status || (landed.reason?.code ?? null) !== record.statusCode;
}

const PENDING_CODES: ReadonlySet<string> = new Set([
  "KUBERNETES_PERMISSION_PENDING",
  "KUBERNETES_NAMESPACE_PENDING",
]);

function isFailure(landed: Landed): boolean {
  return (
    landed.status === "failed" ||
    landed.status === "degraded" ||
    (landed.reason !== null && !PENDING_CODES.has(landed.reason.code))
  );
}

/** A lifecycle audit event for every change of status or reason code. */
async function audit(
  tx: Queryable,
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  landed: Landed,
): Promise<void> {
  const action =
    claim.item.kind === "namespace.teardown"
      ? "namespaces.lifecycle.teardown"
      : isBound(record)
        ? "namespaces.lifecycle.reconcile"
        : "namespaces.lifecycle.ensure";
  await appendAuditEvent(tx, {
    kind: "lifecycle",
    actor: claim.item.actor,
    action,
    resourceKind: "namespace",
    resourceId: record.id,
    outcome: isFailure(landed) ? "failure" : "success",
    details: {
      from: record.status,
      to: landed.status,
      workItem: claim.item.id,
      ...(landed.reason !== null ? { code: landed.reason.code } : {}),
    },
  });
}

/**
 * One Event on the tenant namespace for a change of status or reason: the code as its reason
 * (`READY` when it became ready), Warning for degraded, failed and non-pending reasons.
 */
function announce(
  deps: NamespacePassDeps,
  record: NamespaceRecord,
  verdict: Verdict,
  landed: Landed,
): void {
  if (deps.events === undefined || landed.status === "tombstoned") return;
  const target =
    record.kubernetesNamespace ??
    (verdict.kind === "ensure" ? verdict.seen?.name : undefined) ??
    record.existingNamespace ??
    currentManagedName(record.id);
  const event =
    landed.reason === null
      ? {
          type: "Normal" as const,
          reason: "READY",
          message:
            record.statusCode === null
              ? `platform Namespace ${record.id} is ${landed.status}`
              : `platform Namespace ${record.id} is ${landed.status} again (was ${record.status}: ${record.statusCode})`,
        }
      : {
          type: isFailure(landed) ? ("Warning" as const) : ("Normal" as const),
          reason: landed.reason.code,
          message: `platform Namespace ${record.id} is ${landed.status}: ${landed.reason.message}`,
        };
  void deps.events(target, event).catch(() => undefined);
}

function unreachable(): never {
  throw new Error("every pending, failed or stopped pass has a reason");
}
