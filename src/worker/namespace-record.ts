/**
 * The record step of a Namespace pass: inside the runner's settle transaction, after the
 * fenced queue move, the Namespace's new status and its audit event; then — best effort,
 * after commit — one Kubernetes Event when the status or its reason changed (lifecycle.md §2).
 */
import {
  boundVerdictFor,
  currentManagedName,
  type DeleteNamespaceResult,
  type EnsureNamespaceResult,
} from "../domain/index.js";
import type { EventRecorder } from "../drivers/events.js";
import type { NamespaceWorkKind } from "../work/namespace-work.js";
import type { Claim, WorkState } from "../queue/index.js";
import type { Queryable } from "../store/db.js";
import { appendAuditEvent, auditGated, type NewAuditEvent } from "../store/audit-events.js";
import { applyBoundOutcome } from "../store/namespace-lifecycle.js";
import {
  applyProvisioningOutcome,
  applyTeardownOutcome,
  keepsBinding,
  provisioningOutcomeGated,
} from "../store/namespace-outcomes.js";
import {
  type NamespaceStatus,
  type StatusReasonInput,
  isBoundStatus,
} from "../domain/placement/namespace-status.js";
import type { NamespaceRecord } from "../store/namespaces.js";
import { provisioningOutcomeFor, teardownOutcomeFor } from "./namespace-status-table.js";
import type { ComposedRecord, Stopped } from "./pass-runner.js";

/** The tenant's Kubernetes namespace as a pass read it (`uid: null`: absent). */
export interface Seen {
  readonly name: string;
  readonly uid: string | null;
}

/** What the Compute Driver concluded (a stop before it was called is the runner's). */
export type NamespaceVerdict =
  | {
      readonly kind: "ensure";
      readonly result: EnsureNamespaceResult;
      readonly seen: Seen | undefined;
      /** Kinds of the owned objects written back after drift (bound tenants only). */
      readonly repaired: readonly string[];
    }
  | { readonly kind: "teardown"; readonly result: DeleteNamespaceResult };

type Verdict = NamespaceVerdict | Stopped;

/** The Namespace after the pass: its status and reason code. */
export interface Landed {
  readonly status: NamespaceStatus | "tombstoned";
  readonly reason: StatusReasonInput | null;
}

const isBound = (record: NamespaceRecord): boolean => isBoundStatus(record.status);

/**
 * What the Namespace becomes after the queue move left the work in `workState`, with a
 * lifecycle audit event when its status or reason code changed.
 */
export async function recordNamespaceOutcome(
  tx: Queryable,
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  verdict: Verdict,
  workState: WorkState,
): Promise<Landed> {
  const landed = await applyNamespaceOutcome(tx, claim.item.kind, record, verdict, workState);
  if (changed(record, landed)) {
    await appendAuditEvent(tx, lifecycleEvent(claim, record, landed, rebindOf(record, verdict)));
  }
  const repair = repairEvent(claim, record, verdict);
  if (repair !== null) await appendAuditEvent(tx, repair);
  return landed;
}

/**
 * The record step as writes composed into the pass's fenced completion (`pass-runner.ts`), for
 * the passes that end `done` the common ways — a bound Namespace found unchanged (nothing to
 * write), and provisioning → ready with the binding it keeps — so that the queue move, the
 * status and the audit event are one statement. `null`: every other outcome, recorded by
 * {@link recordNamespaceOutcome} in a transaction. Both give the same rows.
 */
export function composeNamespaceOutcome(
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  verdict: Verdict,
): ComposedRecord<Landed> | null {
  if (verdict.kind !== "ensure") return null;
  if (isBound(record)) {
    const unchanged = boundVerdictFor(verdict.result).to === "unchanged";
    const repair = repairEvent(claim, record, verdict);
    return unchanged
      ? {
          parts: repair === null ? [] : [auditGated(repair)],
          recorded: { status: record.status, reason: currentReason(record) },
        }
      : null;
  }
  const outcome = provisioningOutcomeFor(verdict.result, "succeeded", verdict.seen);
  if (outcome.to !== "ready" || !keepsBinding(record, outcome)) return null;
  const landed: Landed = { status: "ready", reason: null };
  return {
    parts: [
      provisioningOutcomeGated(record.id, outcome),
      ...(changed(record, landed)
        ? [auditGated(lifecycleEvent(claim, record, landed, rebindOf(record, verdict)))]
        : []),
    ],
    recorded: landed,
  };
}

async function applyNamespaceOutcome(
  tx: Queryable,
  kind: NamespaceWorkKind,
  record: NamespaceRecord,
  verdict: Verdict,
  workState: WorkState,
): Promise<Landed> {
  // A teardown verdict, or teardown work stopped before the Driver call.
  if (
    verdict.kind === "teardown" ||
    (verdict.kind === "stopped" && kind === "namespace.teardown")
  ) {
    const outcome =
      verdict.kind === "teardown"
        ? teardownOutcomeFor(verdict.result)
        : { to: "deleting" as const, reason: verdict.reason };
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
      : { to: "failed" as const, reason: verdict.reason };
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

/**
 * The UIDs of a rebind: an administrator's retry made the tenant ready in a namespace whose
 * UID is not the recorded one (it was recreated); `null` otherwise.
 */
function rebindOf(
  record: NamespaceRecord,
  verdict: Verdict,
): { readonly previousUid: string; readonly uid: string } | null {
  if (verdict.kind !== "ensure" || verdict.result.outcome !== "ready") return null;
  const previousUid = record.kubernetesUid;
  const uid = verdict.result.uid;
  return previousUid !== null && previousUid !== uid ? { previousUid, uid } : null;
}

/**
 * A lifecycle audit event when the pass wrote back owned objects after drift (a deleted
 * default-deny NetworkPolicy, a relaxed Pod Security label): the timeline shows the repair.
 */
function repairEvent(
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  verdict: Verdict,
): NewAuditEvent | null {
  if (verdict.kind !== "ensure" || verdict.repaired.length === 0) return null;
  return {
    kind: "lifecycle",
    actor: claim.item.actor,
    action: "namespaces.lifecycle.repair",
    resourceKind: "namespace",
    resourceId: record.id,
    outcome: "success",
    details: { repaired: [...verdict.repaired], workItem: claim.item.id },
  };
}

/** A lifecycle audit event for every change of status or reason code. */
function lifecycleEvent(
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  landed: Landed,
  rebind: { readonly previousUid: string; readonly uid: string } | null = null,
): NewAuditEvent {
  const action =
    claim.item.kind === "namespace.teardown"
      ? "namespaces.lifecycle.teardown"
      : isBound(record)
        ? "namespaces.lifecycle.reconcile"
        : "namespaces.lifecycle.ensure";
  return {
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
      // The claim that settled it: the worker holding the lease (`<host>:<pid>`) and its attempt.
      worker: claim.item.claimedBy,
      attempt: claim.lease.attempt,
      ...(landed.reason !== null ? { code: landed.reason.code } : {}),
      // A retried tenant bound to a recreated namespace: the UID it had and the one it has.
      ...(rebind !== null ? { previousUid: rebind.previousUid, uid: rebind.uid } : {}),
    },
  };
}

/**
 * One Event on the tenant namespace for a change of status or reason: the code as its reason
 * (`READY` when it became ready), Warning for degraded, failed and non-pending reasons.
 * Best effort: never awaited, a failure is dropped.
 */
export function announceNamespaceOutcome(
  events: EventRecorder,
  record: NamespaceRecord,
  verdict: Verdict,
  landed: Landed,
): void {
  if (!changed(record, landed) || landed.status === "tombstoned") return;
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
  void events(target, event).catch(() => undefined);
}
