/**
 * What a Namespace pass's Driver result means (control-plane.md §5, lifecycle.md §1, §4), as
 * pure functions: the pass outcome it takes to the queue, and what the Namespace becomes once
 * the queue has decided (a retry or a pending result may still end the work when its attempts
 * or its convergence deadline are spent). Teardown never leaves `deleting` except to the
 * tombstone.
 */
import type { DeleteNamespaceResult, EnsureNamespaceResult, OutcomeCode } from "../domain/index.js";
import type { WorkState } from "../queue/work-items.js";
import type { ProvisioningOutcome, TeardownOutcome } from "../store/namespace-outcomes.js";
import type { StatusReasonInput } from "../domain/placement/namespace-status.js";
import { outcomeOfResult, type PassOutcome } from "./outcome-table.js";

/**
 * The pass outcome of a Driver result. Over a bound (`ready` or `degraded`) Namespace, a
 * permanent cause is a verdict — degraded — recorded on the Namespace, and the work is done
 * (the next change or resync asks again); pending (a tenant RoleBinding removed) is re-checked
 * with backoff, a transient failure retried. Otherwise the table as it stands.
 */
export function namespaceOutcomeOf(
  result: EnsureNamespaceResult | DeleteNamespaceResult,
  bound: boolean,
): PassOutcome {
  const outcome = outcomeOfResult(result);
  return bound && outcome.kind === "terminal" ? { kind: "done", note: outcome.note } : outcome;
}

function reasonOf(result: {
  readonly code: OutcomeCode;
  readonly reason: string;
}): StatusReasonInput {
  return { code: result.code, message: result.reason };
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
