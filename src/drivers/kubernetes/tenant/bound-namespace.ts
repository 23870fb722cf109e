/**
 * Resolving a tenant's bound namespace for the API (placement.md §3), afresh on every
 * operation and never cached. In the preprovisioned profile: `get` by name and verify, see
 * `preprovisioned-namespace.ts`. Otherwise: find the tenant's claimants, apply the domain's
 * verdict ({@link resolveForPlacement}), then compare the recorded binding. The claimants are
 * found in one of two ways (the spec decision of issue 39, docs/reliability.md):
 *
 * - a write (and a read without a recorded binding, or while the API's claimant index is not
 *   current): list namespaces by `openclaw.dev/namespace=<id>`, afresh;
 * - a read of a tenant with a recorded binding, the index current: one fresh `get` of the
 *   recorded namespace by name — its identity, markers, lifecycle, Pod Security and
 *   termination read now — while the absence of a second claimant comes from the index
 *   ({@link ClaimantIndex}, at most its watch's lag behind). When the index holds any other
 *   claimant, the read lists afresh as a write does, so the refusal is the same.
 *
 * Every doubt fails closed with a {@link TenantObjectError}; there is never a fallback to
 * another name:
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
import { LABELS } from "../../../domain/placement/markers.js";
import type { DriverProfile } from "../../profile.js";
import {
  TenantObjectError,
  type BoundNamespace,
  type TenantPlacement,
} from "../../tenant-objects.js";
import type { ObjectClient } from "../client/index.js";
import { claimantSelector } from "../compute/context.js";
import type { ClaimantIndex } from "./claimant-index.js";
import { tenantKubeFailure } from "./failures.js";
import { resolvePreprovisioned } from "./preprovisioned-namespace.js";

/**
 * Resolves and verifies the bound namespace in `profile`, as the module comment describes;
 * `index` only for a read (a write lists afresh).
 */
export async function resolveBoundNamespace(
  client: ObjectClient,
  profile: DriverProfile,
  tenant: TenantPlacement,
  index: ClaimantIndex | null = null,
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
  const claimants =
    (await recordedClaimant(client, tenant, index)) ?? (await listClaimants(client, tenant));
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

/** Every namespace claiming the tenant, listed afresh by label. */
async function listClaimants(
  client: ObjectClient,
  tenant: TenantPlacement,
): Promise<K8sNamespace[]> {
  try {
    return await client.list("Namespace", { labelSelector: claimantSelector(tenant.tenantId) });
  } catch (err) {
    tenantKubeFailure(err, "list namespaces");
  }
}

/**
 * The claimants as a read sees them through the index: the recorded namespace, read afresh
 * (none when it is gone or no longer claims the tenant), when the index is current and holds
 * no other claimant; `undefined` when the read must list afresh instead (no recorded binding,
 * no index, the index not current, or another namespace claiming the tenant).
 */
async function recordedClaimant(
  client: ObjectClient,
  tenant: TenantPlacement,
  index: ClaimantIndex | null,
): Promise<K8sNamespace[] | undefined> {
  const name = tenant.recordedName;
  if (index === null || name === null || tenant.recordedUid === null) return undefined;
  const indexed = index.claimants(tenant.tenantId);
  if (indexed === null || indexed.some((other) => other !== name)) return undefined;
  let found: K8sNamespace | undefined;
  try {
    found = await client.find("Namespace", { name });
  } catch (err) {
    tenantKubeFailure(err, "read the bound namespace");
  }
  return found?.metadata?.labels?.[LABELS.namespace] === tenant.tenantId ? [found] : [];
}
