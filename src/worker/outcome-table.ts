/**
 * The worker's outcome table (control-plane.md §5), as pure functions: which fenced queue move
 * a Driver result takes, and what the Namespace becomes once the queue has decided (a retry or
 * a pending result may still end the work when its attempts or its convergence deadline are
 * spent). One table for ensure and teardown; teardown never leaves `deleting` except to the
 * tombstone.
 */
import type { DeleteNamespaceResult, EnsureNamespaceResult, OutcomeCode } from "../domain/index.js";
import type { WorkState } from "../queue/work-items.js";
import type { ProvisioningOutcome, TeardownOutcome } from "../store/namespace-outcomes.js";
import type { StatusReasonInput } from "../store/namespace-vocabulary.js";

export type QueueMove = "complete" | "defer" | "retry" | "fail";

export function queueMoveFor(result: EnsureNamespaceResult | DeleteNamespaceResult): QueueMove {
  switch (result.outcome) {
    case "ready":
    case "deleted":
      return "complete";
    case "pending":
      return "defer";
    case "failed":
      return result.retryable ? "retry" : "fail";
  }
}

function reasonOf(result: {
  readonly code: OutcomeCode;
  readonly reason: string;
}): StatusReasonInput {
  return { code: result.code, message: result.reason };
}

/**
 * The queue move of a pass over a bound (`ready` or `degraded`) Namespace: a verdict — ready,
 * or degraded by a permanent cause — completes the work (the next change or resync asks
 * again); pending (a tenant RoleBinding removed) is re-checked with backoff; a transient
 * failure is retried.
 */
export function boundQueueMoveFor(result: EnsureNamespaceResult): QueueMove {
  if (result.outcome === "failed" && !result.retryable) return "complete";
  return queueMoveFor(result);
}

/**
 * The Namespace after an ensure pass over a `provisioning` one, given the work's state after
 * its queue move. Pending stays provisioning even once the queue gave up at the convergence
 * deadline (lifecycle.md §4: no deadline turns waiting for a RoleBinding into a failure; its
 * age shows in `statusReason.since`, and the next change or resync asks again). A namespace
 * seen while pending — verified, e.g. just created — is recorded at once (UID from the start),
 * so a delete and recreate before it is ready is detected.
 */
export function provisioningOutcomeFor(
  result: EnsureNamespaceResult,
  workState: WorkState,
  seen?: { readonly name: string; readonly uid: string | null },
): ProvisioningOutcome {
  const observed = seen === undefined ? {} : { observedUid: seen.uid };
  if (result.outcome === "ready") {
    return {
      to: "ready",
      binding: { namespace: result.namespaceName, uid: result.uid },
      observedUid: result.uid,
    };
  }
  if (result.outcome === "pending") {
    return {
      to: "provisioning",
      reason: reasonOf(result),
      ...observed,
      // Only a namespace verified and Active is worth recording (not one still terminating).
      ...(result.code === "KUBERNETES_PERMISSION_PENDING" && seen?.uid != null
        ? { binding: { namespace: seen.name, uid: seen.uid } }
        : {}),
    };
  }
  return workState === "failed_permanent"
    ? { to: "failed", reason: reasonOf(result), ...observed }
    : { to: "provisioning", reason: reasonOf(result), ...observed };
}

/** The Namespace after a teardown pass: tombstoned when deleted, otherwise still deleting. */
export function teardownOutcomeFor(result: DeleteNamespaceResult): TeardownOutcome {
  return result.outcome === "deleted"
    ? { to: "tombstoned" }
    : { to: "deleting", reason: reasonOf(result) };
}
