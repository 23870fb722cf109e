/**
 * The lifecycle after placement (lifecycle.md §2–§4), as pure decisions: what a pass over a
 * bound Namespace means for its status, and the drift OCC reports instead of repairing.
 *
 * A bound Namespace (`ready` or `degraded`) was verified and bound once, so nothing new is
 * adopted when it comes back: a ready pass returns it to `ready` under the same ID. Everything
 * OCC must not repair — the operator's markers, Pod Security or policies of an external
 * namespace, a vanished or recreated namespace, a sealed check of the preprovisioned one, a
 * tenant RoleBinding that was removed — leaves it `degraded` with the pass's code. A transient
 * failure (the API server unreachable, a conflict) changes nothing: the queue retries.
 */
import type { HasMetadata } from "./k8s-objects.js";
import type { Markers } from "./markers.js";
import type { EnsureNamespaceResult, OutcomeCode } from "./outcomes.js";
import { violation, type Violation } from "./violations.js";

/** What a pass over a bound Namespace decides. */
export type BoundVerdict =
  | { readonly to: "ready" }
  | { readonly to: "degraded"; readonly code: OutcomeCode; readonly message: string }
  /** Transient: keep the status as it is and let the queue retry. */
  | { readonly to: "unchanged"; readonly code: OutcomeCode; readonly message: string };

/** The status a pass result gives a bound Namespace (see the module comment). */
export function boundVerdictFor(result: EnsureNamespaceResult): BoundVerdict {
  switch (result.outcome) {
    case "ready":
      return { to: "ready" };
    case "pending":
      return { to: "degraded", code: result.code, message: result.reason };
    case "failed":
      return result.retryable
        ? { to: "unchanged", code: result.code, message: result.reason }
        : { to: "degraded", code: result.code, message: result.reason };
  }
}

/**
 * An external namespace that lost a tenant marker after it was bound (lifecycle.md §3): the
 * marker is the operator's to restore — OCC writes nothing to their namespace once bound, and
 * binding it again would be an adoption nobody asked for. Names the missing keys only.
 */
export function markerRemovedViolation(namespace: HasMetadata, wanted: Markers): Violation {
  const labels = namespace.metadata?.labels ?? {};
  const annotations = namespace.metadata?.annotations ?? {};
  const missing = [
    ...Object.entries(wanted.labels)
      .filter(([key, value]) => labels[key] !== value)
      .map(([key]) => `label ${key}`),
    ...Object.entries(wanted.annotations)
      .filter(([key, value]) => annotations[key] !== value)
      .map(([key]) => `annotation ${key}`),
  ];
  return violation(
    "tenant-markers",
    "KUBERNETES_OWNERSHIP_CONFLICT",
    `the bound namespace no longer carries ${missing.join(", ")}; restore it — OCC does not write to an operator's namespace once it is bound`,
    missing.length === 1 ? (missing[0]?.replace(/^(label|annotation) /, "") ?? null) : null,
  );
}
