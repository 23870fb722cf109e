/**
 * The port the preprovisioned use cases (src/services/preprovisioned) read the cluster through
 * (preprovisioned.md §2, §6, §7): the bound namespace by name, the tenant RoleBindings as one
 * identity holds them, the objects inside the namespace that `verify` compares with the
 * Installation's, and the OpenShell resources. Every read, never a write: the profile may
 * only `get` one namespace. A refused read throws; {@link unlessForbidden} turns a `forbidden`
 * refusal into `null` where the use case goes on without it (the missing grant is reported on
 * its own).
 */
import type {
  FailedRequirement,
  K8sNamespace,
  NetworkPolicy,
  OwnedObject,
  RbacSubject,
} from "../domain/index.js";
import type { OpenShellSettings } from "../config/installation-config.js";
import { isKubeError, type ObjectClient } from "./kubernetes/client/index.js";
import { apiBindingFailure, tenantGrantFailures } from "./kubernetes/preprovisioned-grants.js";
import { operatorResourceFailures } from "./openshell/namespace-hook.js";

/** The NetworkPolicies the Sandbox Driver declares into the seal (none without OpenShell). */
export { declaredPolicies } from "./openshell/manifests.js";

/** A tenant role an identity must hold in the bound namespace. */
export type TenantGrant = "worker" | "api" | "openshell";

export interface PreprovisionedCluster {
  /** The namespace named `name`, or `null` when there is none. */
  namespace(name: string): Promise<K8sNamespace | null>;
  /**
   * Every tenant role of `grants` this identity does not fully hold in `namespace`, each with
   * the RoleBinding manifest that fixes it, naming `fallback` when the API server cannot say
   * who the caller is.
   */
  grantFailures(
    namespace: string,
    grants: readonly TenantGrant[],
    fallback: RbacSubject,
  ): Promise<FailedRequirement[]>;
  /** The API's RoleBinding (read by name), absent → its manifest; unreadable → `null`. */
  apiBindingFailure(namespace: string, api: RbacSubject): Promise<FailedRequirement | null>;
  /** The NetworkPolicies in `namespace`. */
  networkPolicies(namespace: string): Promise<NetworkPolicy[]>;
  /** The live object of `desired`'s kind and name in `namespace`, or `null`. */
  ownedObject(desired: OwnedObject, namespace: string): Promise<OwnedObject | null>;
  /** The OpenShell namespace labels and declared workspace resources that are not in place. */
  openshellFailures(
    settings: OpenShellSettings,
    namespace: string,
    tenantId: string,
  ): Promise<FailedRequirement[]>;
  close(): void;
}

/** `read`, or `null` when the API server refuses it as forbidden. */
export async function unlessForbidden<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (isKubeError(err, "forbidden")) return null;
    throw err;
  }
}

/** The port over `client` (one identity). */
export function preprovisionedClusterOf(client: ObjectClient): PreprovisionedCluster {
  return {
    namespace: async (name) => (await client.find("Namespace", { name })) ?? null,
    grantFailures: (namespace, grants, fallback) =>
      tenantGrantFailures(client, namespace, grants, fallback),
    apiBindingFailure: (namespace, api) => apiBindingFailure(client, namespace, api),
    networkPolicies: (namespace) => client.list("NetworkPolicy", { namespace }),
    ownedObject: async (desired, namespace) =>
      (await client.find(desired.kind, { name: desired.metadata.name ?? "", namespace })) ?? null,
    openshellFailures: (settings, namespace, tenantId) =>
      operatorResourceFailures(client, settings, namespace, tenantId),
    close: () => {
      client.close();
    },
  };
}
