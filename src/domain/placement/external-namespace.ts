/**
 * Decisions of external placement (placement.md §4.2): is the selected namespace adoptable,
 * what binding write does it need, and what a 409 on that write means.
 *
 * Every refusal here is permanent and leaves the namespace untouched; OCC never creates the
 * selected namespace and never falls back to another one.
 */
import type { GatewayRouting } from "../isolation/compute-settings.js";
import type { HasMetadata, K8sNamespace } from "./k8s-objects.js";
import { ANNOTATIONS, LIFECYCLE, LABELS, isOwnedBy, namespaceBindingMarkers } from "./markers.js";
import { metadataPatchFor, observedUid, type MetadataPatch } from "./metadata-patch.js";
import {
  bindingStateOf,
  foreignMarkerViolations,
  inactiveViolations,
  lifecycleOf,
  podSecurityViolations,
} from "./namespace-checks.js";
import { notDone, type NotDone } from "./outcomes.js";
import {
  nonEmpty,
  notDoneFromViolations,
  violation,
  type Violation,
  type Violations,
} from "./violations.js";

/** Result of verifying a selected namespace. */
export type ExternalNamespaceVerdict =
  | {
      readonly verdict: "adoptable";
      /** `partial` is completed by the patch; `bound` may still need binding labels. */
      readonly binding: "unbound" | "partial" | "bound";
      readonly uid: string;
      /** The one binding write, or `null` when the binding is already complete. */
      readonly patch: MetadataPatch | null;
    }
  | { readonly verdict: "refused"; readonly violations: Violations };

/**
 * Verifies a selected namespace (§4.2 steps 1, 2 and 4) and computes the binding patch
 * (step 7). Requirements, all reported at once, ownership first:
 * - it exists (`null` → `KUBERNETES_NAMESPACE_MISSING`);
 * - annotation `openclaw.dev/namespace-lifecycle` is `external`;
 * - each Pod Security label is `restricted`;
 * - no foreign marker: tenant label, tenant annotation and gateway-namespace label are each
 *   absent or this ID (the message names the key, never the value);
 * - `Active` with no `deletionTimestamp` (`KUBERNETES_NAMESPACE_INACTIVE`, never pending).
 * The manager label is neither required nor written: the operator's value stays.
 */
export function verifyExternalNamespace(
  namespace: K8sNamespace | null,
  tenantId: string,
  routing: GatewayRouting | null,
): ExternalNamespaceVerdict {
  if (namespace === null) {
    return {
      verdict: "refused",
      violations: [
        violation(
          "missing",
          "KUBERNETES_NAMESPACE_MISSING",
          "the selected Kubernetes namespace does not exist; OCC never creates it — the operator must create and prepare it",
        ),
      ],
    };
  }
  const metadata = namespace.metadata;
  const found: Violation[] = [];
  if (lifecycleOf(metadata) !== LIFECYCLE.external) {
    found.push(
      violation(
        "lifecycle",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        `annotation ${ANNOTATIONS.lifecycle} must be "${LIFECYCLE.external}"; the operator sets it to allow adoption`,
        ANNOTATIONS.lifecycle,
      ),
    );
  }
  found.push(...podSecurityViolations(metadata));
  found.push(...foreignMarkerViolations(metadata, tenantId));
  found.push(...inactiveViolations(namespace));

  const violations = nonEmpty(found);
  if (violations !== null) return { verdict: "refused", violations };

  // Only a namespace that passed every requirement is worth a (retryable) incomplete read.
  const uid = observedUid(namespace);
  if (!uid.ok) return { verdict: "refused", violations: [uid.error] };
  const patch = metadataPatchFor(namespace, namespaceBindingMarkers(tenantId, routing));
  if (!patch.ok) return { verdict: "refused", violations: [patch.error] };
  const binding = bindingStateOf(metadata, tenantId);
  return {
    verdict: "adoptable",
    // "foreign" cannot occur here: foreign markers were refused above.
    binding: binding === "foreign" ? "unbound" : binding,
    uid: uid.value,
    patch: patch.value,
  };
}

/**
 * §4.2 step 3: no other namespace may claim this tenant. `claimants` is the result of listing
 * namespaces by `openclaw.dev/namespace=<id>`; only the selected namespace may appear. The
 * other namespace is not named (it may belong to someone else); this tenant's ID is.
 */
export function exclusiveClaimViolation(
  claimants: readonly K8sNamespace[],
  selectedName: string,
  tenantId: string,
): Violation | null {
  return claimants.some((claimant) => claimant.metadata?.name !== selectedName)
    ? violation(
        "exclusive-claim",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        `another Kubernetes namespace already claims tenant ${tenantId} (label ${LABELS.namespace}); remove that claim before adopting this one`,
        LABELS.namespace,
      )
    : null;
}

/**
 * §4.2 step 6: every NetworkPolicy in the namespace must be owned by this tenant. Policies
 * are additive, so an operator allow-all or any foreign policy would silently widen
 * isolation. The count is reported, never the policies' names.
 */
export function foreignPolicyViolation(
  policies: readonly HasMetadata[],
  tenantId: string,
): Violation | null {
  const foreign = policies.filter((policy) => !isOwnedBy(policy.metadata, tenantId)).length;
  return foreign === 0
    ? null
    : violation(
        "network-policies",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        `the namespace holds ${foreign} NetworkPolicy object(s) not owned by this tenant; additive policies would widen isolation — remove them before adoption`,
      );
}

/**
 * §4.2 step 7, after the binding write answered 409 and the namespace was read again:
 * - gone, foreign markers or a lost requirement → the permanent failure of the verdict;
 * - the binding is complete (a concurrent pass finished it) → `bound`: continue;
 * - anything else → retryable `KUBERNETES_CONFLICT`.
 */
export function decideAfterBindingConflict(
  reread: K8sNamespace | null,
  tenantId: string,
  routing: GatewayRouting | null,
): { readonly outcome: "bound" } | NotDone {
  const verdict = verifyExternalNamespace(reread, tenantId, routing);
  if (verdict.verdict === "refused") return notDoneFromViolations(verdict.violations);
  if (verdict.patch === null) return { outcome: "bound" };
  return notDone(
    "KUBERNETES_CONFLICT",
    "the namespace changed while it was being bound; the binding will be retried",
  );
}

/**
 * §4.2 step 8: re-read after binding and verify. Ready to reconcile only when every
 * requirement holds and the binding is complete; the UID returned is the one to record.
 */
export function verifyBoundExternalNamespace(
  reread: K8sNamespace | null,
  tenantId: string,
  routing: GatewayRouting | null,
): { readonly outcome: "bound"; readonly uid: string } | NotDone {
  const verdict = verifyExternalNamespace(reread, tenantId, routing);
  if (verdict.verdict === "refused") return notDoneFromViolations(verdict.violations);
  if (verdict.patch === null) return { outcome: "bound", uid: verdict.uid };
  return notDone(
    "KUBERNETES_CONFLICT",
    "the binding written to the namespace is not visible on re-read; it will be retried",
  );
}
