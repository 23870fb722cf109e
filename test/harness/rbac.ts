import { inject } from "vitest";
import type { ClusterIdentity } from "../../src/devcluster/identities.js";
import {
  createObjectClient,
  isKubeError,
  loadKubeConfig,
  type Kind,
  type KubeObjectLike,
} from "../../src/drivers/kubernetes/client/index.js";
import {
  API_NAMESPACE_RULES,
  TENANT_API_RULES,
  TENANT_CLUSTER_ROLES,
  TENANT_WORKER_RULES,
  WORKER_NAMESPACE_RULES,
  type PolicyRule,
} from "../../src/drivers/kubernetes/rbac-rules.js";

/**
 * Grants the test identities exactly the rules the product states it needs (the chart renders
 * the same). Until the chart exists these fixtures stand in for it; nothing grants more.
 */
const admin = () => createObjectClient(loadKubeConfig(inject("env").kubeconfigs.admin));

async function createIgnoringExists(kind: Kind, obj: KubeObjectLike): Promise<void> {
  const c = admin();
  try {
    await c.create(kind, obj);
  } catch (err) {
    if (!(isKubeError(err, "conflict") && err.reason === "AlreadyExists")) throw err;
  } finally {
    c.close();
  }
}

const user = (name: string) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "User", name });
const clusterRoleRef = (name: string) => ({
  apiGroup: "rbac.authorization.k8s.io",
  kind: "ClusterRole",
  name,
});

async function clusterRole(name: string, rules: readonly PolicyRule[]): Promise<void> {
  await createIgnoringExists("ClusterRole", { metadata: { name }, ...{ rules } });
}

/** The cluster-wide grants of the chart: worker and API namespace roles, tenant roles unbound. */
export async function grantChartClusterRoles(): Promise<void> {
  await clusterRole("occ-worker-namespaces", WORKER_NAMESPACE_RULES);
  await clusterRole("occ-api-namespaces", API_NAMESPACE_RULES);
  await clusterRole(TENANT_CLUSTER_ROLES.worker, TENANT_WORKER_RULES);
  await clusterRole(TENANT_CLUSTER_ROLES.api, TENANT_API_RULES);
  for (const [identity, role] of [
    ["occ-worker", "occ-worker-namespaces"],
    ["occ-api", "occ-api-namespaces"],
  ] as const) {
    await createIgnoringExists("ClusterRoleBinding", {
      metadata: { name: role },
      ...{ roleRef: clusterRoleRef(role), subjects: [user(identity)] },
    });
  }
}

/** What an operator does per tenant namespace: bind a tenant role to the worker or the API. */
export async function bindTenantRole(
  namespace: string,
  identity: Extract<ClusterIdentity, "occ-worker" | "occ-api">,
): Promise<void> {
  const role = identity === "occ-worker" ? TENANT_CLUSTER_ROLES.worker : TENANT_CLUSTER_ROLES.api;
  await createIgnoringExists("RoleBinding", {
    metadata: { name: `${identity}-tenant`, namespace },
    ...{ roleRef: clusterRoleRef(role), subjects: [user(identity)] },
  });
}
