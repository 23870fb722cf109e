/**
 * Resolving the bound namespace (placement.md §3), run by every operation that touches
 * tenant objects, on every call — never cached across calls.
 *
 * For managed and external placement the caller lists namespaces with the label selector
 * `openclaw.dev/namespace=<id>` and hands the items here. (Preprovisioned placement reads one
 * name instead; RBAC forbids the list.) There is never a fallback to another name.
 */
import type { K8sNamespace } from "./k8s-objects.js";
import { ANNOTATIONS, LABELS, LIFECYCLE } from "./markers.js";
import {
  bindingStateOf,
  foreignMarkerViolations,
  inactiveViolations,
  lifecycleOf,
  managerLabelViolations,
  partialMarkerViolation,
  podSecurityViolations,
} from "./namespace-checks.js";
import { currentManagedName, managedNameForm } from "./naming.js";
import type { ListedPlacement } from "./placement.js";
import { nonEmpty, violation, type Violation, type Violations } from "./violations.js";

/** The outcome of resolution. */
export type Resolution =
  /** Exactly one verified claimant. */
  | {
      readonly kind: "claimed";
      readonly mode: "managed" | "external";
      readonly name: string;
      readonly namespace: K8sNamespace;
    }
  /** No claimant: the current managed name, which may not exist yet. */
  | { readonly kind: "unclaimed"; readonly name: string }
  /** Fail closed. */
  | { readonly kind: "refused"; readonly violations: Violations };

/**
 * Resolves the listed claimants of `tenantId`:
 * - more than one → `KUBERNETES_OWNERSHIP_CONFLICT` "multiple Kubernetes namespaces claim
 *   tenant <id>" (this tenant's own ID is safe to show; the namespaces are not named);
 * - none → `unclaimed` with the current managed name;
 * - one → it must carry both tenant markers exactly (and no foreign gateway-namespace label).
 *   With lifecycle `external` it must also have the three restricted Pod Security labels and
 *   be `Active` without `deletionTimestamp`. Without a lifecycle annotation it is managed: its
 *   name must be the current or previous managed form and it must carry
 *   `app.kubernetes.io/managed-by=openclaw-enterprise`. Any other lifecycle value fails.
 */
export function resolveClaimants(tenantId: string, claimants: readonly K8sNamespace[]): Resolution {
  const [claimant, ...others] = claimants;
  if (claimant === undefined) return { kind: "unclaimed", name: currentManagedName(tenantId) };
  if (others.length > 0) {
    return refused(
      violation(
        "exclusive-claim",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        `multiple Kubernetes namespaces claim tenant ${tenantId}`,
        LABELS.namespace,
      ),
    );
  }
  const metadata = claimant.metadata;
  const name = metadata?.name ?? "";
  const found: Violation[] = [];
  const binding = bindingStateOf(metadata, tenantId);
  if (binding === "foreign") found.push(...foreignMarkerViolations(metadata, tenantId));
  if (binding === "partial") found.push(partialMarkerViolation(metadata));
  if (binding === "unbound") {
    found.push(
      violation(
        "tenant-markers",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        "the listed claimant carries neither tenant marker",
      ),
    );
  }

  const lifecycle = lifecycleOf(metadata);
  const mode = lifecycle === LIFECYCLE.external ? "external" : "managed";
  if (lifecycle === LIFECYCLE.external) {
    found.push(...podSecurityViolations(metadata), ...inactiveViolations(claimant));
  } else if (lifecycle === undefined) {
    found.push(...managerLabelViolations(metadata));
    if (managedNameForm(name, tenantId) === null) {
      found.push(
        violation(
          "managed-name",
          "KUBERNETES_OWNERSHIP_CONFLICT",
          "the managed namespace claiming this tenant has neither the current nor the previous managed name",
        ),
      );
    }
  } else {
    found.push(
      violation(
        "lifecycle",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        "the namespace claiming this tenant has a lifecycle annotation other than external; a listed claimant must be external or managed",
        ANNOTATIONS.lifecycle,
      ),
    );
  }
  const violations = nonEmpty(found);
  return violations === null
    ? { kind: "claimed", mode, name, namespace: claimant }
    : { kind: "refused", violations };
}

/**
 * Resolution checked against how the tenant was placed:
 * - managed: an external claimant was never explicitly selected → refused (OCC never adopts
 *   implicitly);
 * - external: only the selected namespace, bound as external, is acceptable; no claimant
 *   means the binding is gone → refused (never the managed name as a fallback).
 */
export function resolveForPlacement(
  placement: ListedPlacement,
  tenantId: string,
  claimants: readonly K8sNamespace[],
): Resolution {
  const resolution = resolveClaimants(tenantId, claimants);
  if (resolution.kind === "refused") return resolution;
  if (placement.mode === "managed") {
    return resolution.kind === "claimed" && resolution.mode === "external"
      ? refused(
          violation(
            "explicit-selection",
            "KUBERNETES_OWNERSHIP_CONFLICT",
            "the Kubernetes namespace claiming this tenant is external but was not explicitly selected; OCC never adopts implicitly",
          ),
        )
      : resolution;
  }
  if (resolution.kind === "unclaimed") {
    return refused(
      violation(
        "tenant-markers",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        `the selected Kubernetes namespace is not bound to tenant ${tenantId}`,
      ),
    );
  }
  return resolution.mode === "external" && resolution.name === placement.existingNamespace
    ? resolution
    : refused(
        violation(
          "exclusive-claim",
          "KUBERNETES_OWNERSHIP_CONFLICT",
          `tenant ${tenantId} is claimed by a Kubernetes namespace other than its selected one`,
          LABELS.namespace,
        ),
      );
}

/**
 * UID pinning (§3, beyond the seeds): OCC records the bound namespace's `metadata.uid` when it
 * first creates or binds it. A different (or missing) UID later means the namespace was
 * deleted and recreated under the same name → `KUBERNETES_NAMESPACE_REPLACED` (lifecycle.md
 * §3). With nothing recorded yet there is nothing to compare, and the caller records the
 * observed UID.
 */
export function uidPinViolation(
  recordedUid: string | null,
  namespace: K8sNamespace,
): Violation | null {
  if (recordedUid === null || namespace.metadata?.uid === recordedUid) return null;
  return violation(
    "uid",
    "KUBERNETES_NAMESPACE_REPLACED",
    "the bound Kubernetes namespace was deleted and recreated (metadata.uid changed); OCC will not use the new one until an administrator retries",
  );
}

function refused(single: Violation): Resolution {
  return { kind: "refused", violations: [single] };
}

/**
 * UID pinning when the bound namespace is gone altogether: a UID was recorded, so the tenant's
 * objects lived in a namespace that no longer exists. Recreating it silently would hide that
 * loss, so placement stops until an administrator retries (`KUBERNETES_NAMESPACE_MISSING`).
 */
export function boundNamespaceMissingViolation(): Violation {
  return violation(
    "uid",
    "KUBERNETES_NAMESPACE_MISSING",
    "the bound Kubernetes namespace no longer exists (its metadata.uid was recorded); OCC will not recreate it silently — an administrator's retry recreates it",
  );
}
