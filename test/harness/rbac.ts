import { inject } from "vitest";
import type { ClusterIdentity } from "../../src/devcluster/identities.js";
import { createObjectClient, loadKubeConfig } from "../../src/drivers/kubernetes/client/index.js";
import {
  chartClusterRbac,
  createMissing,
  tenantRoleBinding,
  type RbacSubject,
} from "../../src/drivers/kubernetes/rbac-objects.js";

/**
 * Grants the test identities exactly the rules the product states it needs (the chart renders
 * the same); nothing grants more. Until the chart exists these stand in for it.
 */
const user = (name: string): RbacSubject => ({ kind: "User", name });

async function asAdmin(fn: (c: ReturnType<typeof createObjectClient>) => Promise<void>) {
  const c = createObjectClient(loadKubeConfig(inject("env").kubeconfigs.admin));
  try {
    await fn(c);
  } finally {
    c.close();
  }
}

/** The cluster-wide grants of the chart: worker and API namespace roles, tenant roles unbound. */
export async function grantChartClusterRoles(): Promise<void> {
  await asAdmin((c) => createMissing(c, chartClusterRbac(user("occ-worker"), user("occ-api"))));
}

/** What an operator does per tenant namespace: bind a tenant role to the worker or the API. */
export async function bindTenantRole(
  namespace: string,
  identity: Extract<ClusterIdentity, "occ-worker" | "occ-api">,
): Promise<void> {
  const role = identity === "occ-worker" ? "worker" : "api";
  await asAdmin((c) => createMissing(c, [tenantRoleBinding(namespace, role, user(identity))]));
}
