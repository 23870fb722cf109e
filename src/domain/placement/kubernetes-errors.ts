/**
 * Classification of Kubernetes request failures into outcome codes (placement.md §5, §7).
 *
 * Drivers describe a failure structurally — HTTP status, deadline, transport — and never by
 * its message text. A 403 changes meaning once the namespace has been verified: before, the
 * controller lacks a permission it must have (permanent); after, the operator has not yet
 * granted the worker's RoleBinding in the tenant namespace (pending, §4.2 step 5).
 * A 404 with a meaning (a missing namespace, an absent object) is handled by the caller
 * before it gets here; an unexpected one is "another 4xx".
 */
import type { OutcomeCode } from "./outcomes.js";

/** A failed Kubernetes request. */
export type KubernetesFailure =
  | { readonly kind: "status"; readonly status: number }
  | { readonly kind: "timeout" }
  | { readonly kind: "network" };

/** Whether the target namespace has been verified in this pass. */
export type VerificationStage = "before-verification" | "after-verification";

/** The outcome code of a failed request. */
export function codeForKubernetesFailure(
  failure: KubernetesFailure,
  stage: VerificationStage,
): OutcomeCode {
  switch (failure.kind) {
    case "timeout":
      return "KUBERNETES_API_TIMEOUT";
    case "network":
      return "KUBERNETES_API_UNAVAILABLE";
    case "status":
      if (failure.status === 429 || failure.status >= 500) return "KUBERNETES_API_UNAVAILABLE";
      if (failure.status === 409) return "KUBERNETES_CONFLICT";
      if (failure.status === 403 && stage === "after-verification") {
        return "KUBERNETES_PERMISSION_PENDING";
      }
      return "KUBERNETES_API_REJECTED";
  }
}

/**
 * True when a failed read may be retried within the pass (429, 5xx, network errors), within
 * the caller's small budget and honouring `Retry-After`. Writes are never retried in a pass.
 */
export function isRetryableRead(failure: KubernetesFailure): boolean {
  return (
    failure.kind === "network" ||
    (failure.kind === "status" && (failure.status === 429 || failure.status >= 500))
  );
}
