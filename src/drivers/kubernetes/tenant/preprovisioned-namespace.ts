/**
 * The preprovisioned profile of tenant-object resolution (placement.md §3, preprovisioned.md
 * §2): RBAC allows only a `get` of one namespace, so the bound namespace is read by name and
 * verified with exactly the Compute Driver's checks — never listed. The profile is the
 * process's, passed to each Driver explicitly (`DriverProfile`).
 */
import {
  PREPROVISIONED_MESSAGES,
  currentManagedName,
  verifyPreprovisionedNamespace,
  type K8sNamespace,
  type PreprovisionedExpectation,
} from "../../../domain/index.js";
import {
  TenantObjectError,
  type BoundNamespace,
  type TenantPlacement,
} from "../../tenant-objects.js";
import type { ObjectClient } from "../client/index.js";
import { tenantKubeFailure } from "./failures.js";

/**
 * Resolves the bound namespace in the preprovisioned profile: only the bound Namespace ID,
 * never an `existingNamespace` selection; `get` the derived name and verify every §3
 * requirement, the bound UID and the UID and name OCC recorded. Every doubt → `ownership`.
 */
export async function resolvePreprovisioned(
  client: ObjectClient,
  tenant: TenantPlacement,
  expected: PreprovisionedExpectation,
): Promise<BoundNamespace> {
  if (tenant.placement.mode === "external") {
    throw new TenantObjectError("ownership", PREPROVISIONED_MESSAGES.existingNamespace);
  }
  if (tenant.tenantId !== expected.binding.namespaceId) {
    throw new TenantObjectError("ownership", PREPROVISIONED_MESSAGES.otherNamespace);
  }
  const name = currentManagedName(tenant.tenantId);
  let namespace: K8sNamespace | null;
  try {
    namespace = (await client.find("Namespace", { name })) ?? null;
  } catch (err) {
    tenantKubeFailure(err, "read the preprovisioned namespace");
  }
  const verdict = verifyPreprovisionedNamespace(namespace, expected, tenant.recordedUid);
  if (verdict.verdict === "refused") {
    throw new TenantObjectError(
      namespace === null ? "namespace-missing" : "ownership",
      verdict.result.reason,
    );
  }
  if (tenant.recordedName !== null && tenant.recordedName !== verdict.name) {
    throw new TenantObjectError(
      "ownership",
      "the tenant's Kubernetes namespace is not the one recorded",
    );
  }
  return { name: verdict.name, uid: verdict.uid };
}
