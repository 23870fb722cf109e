/**
 * Resolving a tenant's bound namespace for the API (placement.md §3), afresh on every
 * operation and never cached. In the preprovisioned profile: `get` by name and verify, see
 * `preprovisioned-namespace.ts`. Otherwise: list namespaces by `openclaw.dev/namespace=<id>`, apply the
 * domain's verdict ({@link resolveForPlacement}), then compare the recorded binding. Every
 * doubt fails closed with a {@link TenantObjectError}; there is never a fallback to another
 * name:
 *
 * - two claimants, a claimant without both tenant markers, a managed claimant of neither
 *   managed name form (or without the manager label), an external claimant whose Pod Security
 *   is relaxed or that is terminating, a claimant that is not the selected namespace →
 *   `ownership`;
 * - a recorded UID (or name) that differs from the claimant's → `ownership` (recreated);
 * - no claimant: for a managed tenant with nothing recorded, the namespace is not created
 *   yet → `namespace-missing`; with a recorded UID it was deleted → `ownership`.
 */
import type { K8sNamespace } from "../../../domain/placement/k8s-objects.js";
import {
  boundNamespaceMissingViolation,
  resolveForPlacement,
  uidPinViolation,
} from "../../../domain/placement/resolve.js";
import type { DriverProfile } from "../../profile.js";
import {
  TenantObjectError,
  type BoundNamespace,
  type TenantPlacement,
} from "../../tenant-objects.js";
import type { ObjectClient } from "../client/index.js";
import { claimantSelector } from "../compute/context.js";
import { tenantKubeFailure } from "./failures.js";
import { resolvePreprovisioned } from "./preprovisioned-namespace.js";

/** Resolves and verifies the bound namespace in `profile`, as the module comment describes. */
export async function resolveBoundNamespace(
  client: ObjectClient,
  profile: DriverProfile,
  tenant: TenantPlacement,
): Promise<BoundNamespace> {
  if (profile.kind === "preprovisioned") {
    return resolvePreprovisioned(client, tenant, profile.expected);
  }
  const placement = tenant.placement;
  if (placement.mode === "preprovisioned") {
    throw new TenantObjectError(
      "unavailable",
      "Preprovisioned placement needs the OCC_PREPROVISIONED_NAMESPACE binding, which this process was started without.",
    );
  }
  let claimants: K8sNamespace[];
  try {
    claimants = await client.list("Namespace", {
      labelSelector: claimantSelector(tenant.tenantId),
    });
  } catch (err) {
    tenantKubeFailure(err, "list namespaces");
  }
  const resolution = resolveForPlacement(placement, tenant.tenantId, claimants);
  if (resolution.kind === "refused") {
    throw new TenantObjectError(
      "ownership",
      `The tenant's Kubernetes namespace cannot be resolved safely: ${resolution.violations
        .map((v) => v.message)
        .join("; ")}.`,
    );
  }
  if (resolution.kind === "unclaimed") {
    if (tenant.recordedUid !== null) {
      throw new TenantObjectError("ownership", boundNamespaceMissingViolation().message);
    }
    throw new TenantObjectError(
      "namespace-missing",
      "The tenant's Kubernetes namespace does not exist yet; retry once the Namespace is provisioned.",
    );
  }
  const uidViolation = uidPinViolation(tenant.recordedUid, resolution.namespace);
  const uid = resolution.namespace.metadata?.uid;
  if (
    uidViolation !== null ||
    uid === undefined ||
    (tenant.recordedName !== null && tenant.recordedName !== resolution.name)
  ) {
    throw new TenantObjectError(
      "ownership",
      uidViolation?.message ?? "the tenant's Kubernetes namespace is not the one recorded",
    );
  }
  return { name: resolution.name, uid };
}
