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

/** The Namespace after an ensure pass, given the work's state after its queue move. */
export function provisioningOutcomeFor(
  result: EnsureNamespaceResult,
  workState: WorkState,
): ProvisioningOutcome {
  if (result.outcome === "ready") {
    return { to: "ready", binding: { namespace: result.namespaceName, uid: result.uid } };
  }
  return workState === "failed_permanent"
    ? { to: "failed", reason: reasonOf(result) }
    : { to: "provisioning", reason: reasonOf(result) };
}

/** The Namespace after a teardown pass: tombstoned when deleted, otherwise still deleting. */
export function teardownOutcomeFor(result: DeleteNamespaceResult): TeardownOutcome {
  return result.outcome === "deleted"
    ? { to: "tombstoned" }
    : { to: "deleting", reason: reasonOf(result) };
}
