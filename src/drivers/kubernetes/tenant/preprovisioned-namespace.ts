/**
 * The preprovisioned profile of tenant-object resolution (placement.md §3, preprovisioned.md
 * §2): RBAC allows only a `get` of one namespace, so the bound namespace is read by name and
 * verified with exactly the Compute Driver's checks — never listed.
 *
 * The profile belongs to the process (one Installation, one binding); it is registered on the
 * Kubernetes client the process hands its Drivers, so every Driver built on that client — the
 * Configuration, Secret and workload Drivers alike — resolves in the same profile without each
 * caller having to pass it along.
 */
import {
  PREPROVISIONED_MESSAGES,
  currentManagedName,
  verifyPreprovisionedNamespace,
  type K8sNamespace,
  type PreprovisionedExpectation,
} from "../../../domain/index.js";
import type { ObjectClient } from "../client/index.js";
import type { BoundNamespace, TenantPlacement } from "./bound-namespace.js";
import { TenantObjectError, tenantKubeFailure } from "./failures.js";

const profiles = new WeakMap<ObjectClient, PreprovisionedExpectation>();

/** Declares that Drivers using `client` run in the preprovisioned profile `expected`. */
export function useTenantNamespaceProfile(
  client: ObjectClient,
  expected: PreprovisionedExpectation,
): ObjectClient {
  profiles.set(client, expected);
  return client;
}

/** The preprovisioned profile registered on `client`, or `undefined` (normal profile). */
export function tenantNamespaceProfileOf(
  client: ObjectClient,
): PreprovisionedExpectation | undefined {
  return profiles.get(client);
}

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
    namespace = (await client.find<K8sNamespace>("Namespace", { name })) ?? null;
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
