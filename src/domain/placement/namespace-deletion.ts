/**
 * Deletion decisions (placement.md §6). The caller has already refused deletion while the
 * tenant holds Agents, Configurations, Secrets or ServiceAccounts; here the observed
 * namespace decides what, if anything, may be removed.
 */
import type { K8sNamespace } from "./k8s-objects.js";
import { isTerminating } from "./k8s-objects.js";
import { LIFECYCLE } from "./markers.js";
import {
  bindingStateOf,
  foreignMarkerViolations,
  lifecycleOf,
  managerLabelViolations,
  partialMarkerViolation,
} from "./namespace-checks.js";
import { observedUid } from "./metadata-patch.js";
import { managedNameForm } from "./naming.js";
import { deleted, pending, type DeleteNamespaceResult } from "./outcomes.js";
import type { Placement } from "./placement.js";
import { uidPinViolation } from "./resolve.js";
import { nonEmpty, notDoneFromViolations, violation, type Violation } from "./violations.js";

/** The operator-facing refusal of preprovisioned deletion (preprovisioned.md §5). */
export const PREPROVISIONED_DELETION_REFUSAL =
  "The operator retains the preprovisioned Namespace and owns its teardown.";

/** What the driver does next. */
export type NamespaceDeletionDecision =
  /** Report this result; nothing (more) to delete. */
  | { readonly decision: "finished"; readonly result: DeleteNamespaceResult }
  /** External: run the Sandbox cleanup hook, then delete OCC's owned objects only. */
  | {
      readonly decision: "delete-owned-objects";
      readonly namespaceName: string;
      readonly uid: string;
    }
  /** Managed: run the Sandbox cleanup hook, then delete the namespace with this UID precondition. */
  | { readonly decision: "delete-namespace"; readonly namespaceName: string; readonly uid: string };

/** Inputs of {@link decideNamespaceDeletion}. */
export interface NamespaceDeletionInput {
  readonly placement: Placement;
  readonly tenantId: string;
  /** The selected (external), resolved (managed) or derived (preprovisioned) namespace; `null` if missing. */
  readonly observed: K8sNamespace | null;
  /** The UID recorded at creation or binding, `null` if never recorded. */
  readonly recordedUid: string | null;
}

/**
 * Decides a deletion pass, in this order:
 * 1. missing → deleted, in every mode;
 * 2. preprovisioned → refused permanently (the operator owns its teardown);
 * 3. neither tenant marker → deleted with no write: the namespace was never bound, and is left
 *    byte-for-byte untouched (in managed mode too — it was never OCC's);
 * 4. one tenant marker only, or a foreign value → permanent failure;
 * 5. a recorded UID that differs → permanent failure (the namespace was recreated);
 * 6. managed only: a lifecycle annotation, a missing manager label or a name that is not a
 *    managed form → permanent failure (deleting it could destroy an operator's namespace);
 * 7. terminating → pending;
 * 8. external → delete owned objects; managed → delete the namespace.
 */
export function decideNamespaceDeletion(input: NamespaceDeletionInput): NamespaceDeletionDecision {
  const { placement, tenantId, observed, recordedUid } = input;
  if (observed === null) return finished(deleted());
  if (placement.mode === "preprovisioned") {
    return refuse([
      violation("preprovisioned", "KUBERNETES_OWNERSHIP_CONFLICT", PREPROVISIONED_DELETION_REFUSAL),
    ]);
  }
  const metadata = observed.metadata;
  const binding = bindingStateOf(metadata, tenantId);
  if (binding === "unbound") return finished(deleted());
  if (binding === "foreign") return refuse(foreignMarkerViolations(metadata, tenantId));
  if (binding === "partial") return refuse([partialMarkerViolation(metadata)]);

  const found: Violation[] = [];
  const pin = uidPinViolation(recordedUid, observed);
  if (pin !== null) found.push(pin);
  if (placement.mode === "managed") found.push(...managedViolations(observed, tenantId));
  const violations = nonEmpty(found);
  if (violations !== null) return refuse(violations);

  if (isTerminating(observed)) {
    return finished(
      pending(
        "KUBERNETES_NAMESPACE_PENDING",
        "the namespace is terminating; waiting until it is gone",
      ),
    );
  }
  const uid = observedUid(observed);
  if (!uid.ok) return refuse([uid.error]);
  const namespaceName = metadata?.name ?? "";
  return placement.mode === "external"
    ? { decision: "delete-owned-objects", namespaceName, uid: uid.value }
    : { decision: "delete-namespace", namespaceName, uid: uid.value };
}

/**
 * The pending result after a delete was issued and something is still there (the managed
 * namespace until it is gone; an owned object that survived its delete).
 */
export function deletionPending(reason: string): DeleteNamespaceResult {
  return pending("KUBERNETES_NAMESPACE_PENDING", reason);
}

function managedViolations(namespace: K8sNamespace, tenantId: string): Violation[] {
  const metadata = namespace.metadata;
  const found: Violation[] = [...managerLabelViolations(metadata)];
  const lifecycle = lifecycleOf(metadata);
  if (lifecycle !== undefined) {
    found.push(
      violation(
        lifecycle === LIFECYCLE.external ? "explicit-selection" : "lifecycle",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        "the namespace carries a lifecycle annotation, so it is not a managed namespace; OCC will not delete it",
      ),
    );
  }
  if (managedNameForm(metadata?.name ?? "", tenantId) === null) {
    found.push(
      violation(
        "managed-name",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        "the namespace claiming this tenant does not have a managed name; OCC will not delete it",
      ),
    );
  }
  return found;
}

function finished(result: DeleteNamespaceResult): NamespaceDeletionDecision {
  return { decision: "finished", result };
}

/** Callers pass lists that are non-empty by construction (e.g. a "foreign" binding state). */
function refuse(list: readonly Violation[]): NamespaceDeletionDecision {
  const violations = nonEmpty(list);
  if (violations === null) throw new Error("refuse() needs at least one violation");
  return finished(notDoneFromViolations(violations));
}
