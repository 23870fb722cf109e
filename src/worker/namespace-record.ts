/**
 * The record of a Namespace pass, declared (`record-writes.ts`): the Namespace's new status and
 * its audit events, which the runner makes with the fenced queue move; then — best effort,
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
import { auditGated, type NewAuditEvent } from "../store/audit-events.js";
import { applyBoundOutcome } from "../store/namespace-lifecycle.js";
import {
  applyProvisioningOutcome,
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
import { teardownWrite } from "./namespace-teardown.js";
import type { Stopped } from "./pass-runner.js";
import {
  composable,
  inTransaction,
  type DeclaredRecord,
  type RecordWrite,
} from "./record-writes.js";

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
 * The record of a pass: what the Namespace becomes after the queue move left the work in
 * `workState`, with a lifecycle audit event when its status or reason code changed and one
 * when the pass repaired drift, then — with `events` — its Kubernetes Event after commit.
 * Composable (`record-writes.ts`) where a write can be one gated statement: the audit events,
 * and provisioning → ready keeping its binding; the rest run in the settle transaction.
 */
export function recordNamespaceOutcome(
  claim: Claim<NamespaceWorkKind>,
  record: NamespaceRecord,
  verdict: Verdict,
  workState: WorkState,
  events?: EventRecorder,
): DeclaredRecord {
  const { write, landed } = namespaceWrite(claim.item.kind, record, verdict, workState);
  const audit = [
    ...(changed(record, landed)
      ? [lifecycleEvent(claim, record, landed, rebindOf(record, verdict))]
      : []),
    ...[repairEvent(claim, record, verdict)].filter((e) => e !== null),
  ];
  const repaired = verdict.kind === "ensure" ? verdict.repaired : [];
  return {
    writes: [...(write === null ? [] : [write]), ...audit.map((e) => composable(auditGated(e)))],
    ...(events === undefined
      ? {}
      : {
          announce: () => {
            announceNamespaceOutcome(events, record, verdict, landed);
          },
        }),
    ...(repaired.length === 0 ? {} : { details: { repaired } }),
  };
}

/** The write of the Namespace's new status (`null`: none), and what it lands on. */
function namespaceWrite(
  kind: NamespaceWorkKind,
  record: NamespaceRecord,
  verdict: Verdict,
  workState: WorkState,
): { readonly write: RecordWrite | null; readonly landed: Landed } {
  // A teardown verdict, or teardown work stopped before the Driver call.
  if (
    verdict.kind === "teardown" ||
    (verdict.kind === "stopped" && kind === "namespace.teardown")
  ) {
    const outcome =
      verdict.kind === "teardown"
        ? teardownOutcomeFor(verdict.result)
        : { to: "deleting" as const, reason: verdict.reason };
    return {
      write: teardownWrite(record.id, outcome),
      landed:
        outcome.to === "tombstoned"
          ? { status: "tombstoned", reason: null }
          : { status: "deleting", reason: outcome.reason },
    };
  }
  const unchanged = {
    write: null,
    landed: { status: record.status, reason: currentReason(record) },
  };
  if (isBound(record)) {
    // A stop (attempts spent by dead workers) or a transient failure is no verdict.
    if (verdict.kind !== "ensure") return unchanged;
    const bound = boundVerdictFor(verdict.result);
    if (bound.to === "unchanged") return unchanged;
    const observedUid = verdict.seen?.uid;
    const reason = bound.to === "degraded" ? { code: bound.code, message: bound.message } : null;
    const outcome = {
      ...(reason === null ? { to: "ready" as const } : { to: "degraded" as const, reason }),
      ...(observedUid !== undefined ? { observedUid } : {}),
    };
    return {
      write: inTransaction((tx) => applyBoundOutcome(tx, record.id, outcome)),
      landed: { status: bound.to, reason },
    };
  }
  const outcome =
    verdict.kind === "ensure"
      ? provisioningOutcomeFor(verdict.result, workState, verdict.seen)
      : { to: "failed" as const, reason: verdict.reason };
  // A refused binding must be able to throw: only a binding kept is one gated statement.
  const write =
    outcome.to === "ready" && keepsBinding(record, outcome)
      ? composable(provisioningOutcomeGated(record.id, outcome))
      : inTransaction((tx) => applyProvisioningOutcome(tx, record.id, outcome));
  return {
    write,
    landed: { status: outcome.to, reason: outcome.to === "ready" ? null : outcome.reason },
  };
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
