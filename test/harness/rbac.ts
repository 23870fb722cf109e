import { isDeepStrictEqual } from "node:util";
import { inject } from "vitest";
import type { ClusterIdentity } from "../../src/devcluster/identities.js";
import {
  createObjectClient,
  isKubeError,
  loadKubeConfig,
  type ObjectClient,
} from "../../src/drivers/kubernetes/client/index.js";
import {
  createMissing,
  tenantRoleBinding,
  type RbacSubject,
} from "../../src/drivers/kubernetes/rbac-objects.js";
import { WORKER_TENANT_BINDING_ROLE } from "../../src/drivers/kubernetes/rbac-rules.js";
import { CI_VALUES, renderChart, type RenderedObject } from "./helm.js";
import { eventually } from "./kube.js";

/**
 * Grants the test identities the cluster RBAC the Helm chart renders — rendered by the real
 * helm from deploy/helm/openclaw-enterprise, not hand-written — so the Driver integration tests
 * prove the chart's least privilege against the real RBAC authorizer. Only the subjects change:
 * the chart binds its ServiceAccounts, the tests bind the static users `occ-worker` / `occ-api`.
 */
const user = (name: string): RbacSubject => ({ kind: "User", name });
const RBAC_GROUP = "rbac.authorization.k8s.io";

/** The names of the chart's cluster-wide namespace roles (same in both profiles). */
export const CHART_NAMESPACE_ROLES = {
  worker: "openclaw-enterprise-worker-namespaces",
  api: "openclaw-enterprise-api-namespaces",
} as const;

/** A rendered ClusterRole, reduced to what the API server stores of it. */
export interface ChartClusterRole extends RenderedObject {
  readonly kind: "ClusterRole";
  readonly rules: readonly unknown[];
}

async function asAdmin(fn: (c: ObjectClient) => Promise<void>) {
  const c = createObjectClient(loadKubeConfig(inject("env").kubeconfigs.admin));
  try {
    await fn(c);
  } finally {
    c.close();
  }
}

function clusterRoles(objects: readonly RenderedObject[]): ChartClusterRole[] {
  return objects
    .filter((o): o is ChartClusterRole => o.kind === "ClusterRole")
    .map((o) => ({
      apiVersion: o.apiVersion,
      kind: "ClusterRole",
      metadata: { name: o.metadata.name },
      rules: o.rules,
    }));
}

let normalRender: Promise<ChartClusterRole[]> | undefined;

/**
 * Every ClusterRole the chart renders in the normal profile with ci/default-values.yaml (which
 * enables OpenShell, so the OpenShell tenant role is among them); rendered once per test file.
 */
export function normalChartClusterRoles(): Promise<ChartClusterRole[]> {
  normalRender ??= renderChart({ valuesFiles: [CI_VALUES.default] }).then(clusterRoles);
  return normalRender;
}

let preprovisionedRender: Promise<ChartClusterRole[]> | undefined;

/**
 * Every ClusterRole the chart renders in the preprovisioned profile with
 * ci/preprovisioned-values.yaml (OpenShell enabled, bound to its example namespace); rendered
 * once per test file. Its tenant roles do not depend on the bound namespace.
 */
function preprovisionedChartRoles(): Promise<ChartClusterRole[]> {
  preprovisionedRender ??= renderChart({ valuesFiles: [CI_VALUES.preprovisioned] }).then(
    clusterRoles,
  );
  return preprovisionedRender;
}

/**
 * The tenant ClusterRoles the chart renders unbound (tenant-worker, tenant-api and, with
 * OpenShell, tenant-openshell) in `profile`, for tests that create them without the namespace
 * roles. The names are the same in both profiles; the rules of tenant-openshell are not (it is
 * read-only in the preprovisioned profile), so preprovisioned roles must be created under other
 * names beside the normal ones in the shared test cluster (see `ensureRole`).
 */
export async function chartTenantClusterRoles(
  profile: "normal" | "preprovisioned" = "normal",
): Promise<ChartClusterRole[]> {
  const namespaceRoles: readonly string[] = [
    ...Object.values(CHART_NAMESPACE_ROLES),
    WORKER_TENANT_BINDING_ROLE,
  ];
  const rendered =
    profile === "normal" ? await normalChartClusterRoles() : await preprovisionedChartRoles();
  return rendered.filter((r) => !namespaceRoles.includes(r.metadata.name));
}

/**
 * Creates `role`, or — when a role of that name exists (another test file of the run created
 * it) — requires its rules to equal the chart's, so a hand-written role can never stand in.
 */
async function ensureRole(c: ObjectClient, role: ChartClusterRole): Promise<void> {
  try {
    await c.create("ClusterRole", role);
  } catch (err) {
    if (!(isKubeError(err, "conflict") && err.reason === "AlreadyExists")) throw err;
    const existing = await c.get("ClusterRole", { name: role.metadata.name });
    if (!isDeepStrictEqual(existing.rules, role.rules)) {
      throw new Error(
        `ClusterRole ${role.metadata.name} exists with rules other than the chart's: ${JSON.stringify(existing.rules)}`,
      );
    }
  }
}

function bindingTo(role: string, who: RbacSubject) {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: "ClusterRoleBinding" as const,
    metadata: { name: role },
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: role },
    subjects: [{ apiGroup: RBAC_GROUP, kind: "User", name: who.name }],
  };
}

/** Creates chart-rendered ClusterRoles, each checked against an existing one of that name. */
export async function ensureChartRoles(roles: readonly ChartClusterRole[]): Promise<void> {
  await asAdmin(async (c) => {
    for (const role of roles) await ensureRole(c, role);
  });
}

/**
 * The cluster-wide grants of the chart (normal profile): its worker and API namespace roles
 * bound to `occ-worker` / `occ-api`, its worker role for binding the tenant roles in managed
 * namespaces bound to `occ-worker`, and its tenant roles created unbound (tests bind them per
 * namespace with {@link bindTenantRole}, as an operator does).
 */
export async function grantChartClusterRoles(): Promise<void> {
  const roles = await normalChartClusterRoles();
  await asAdmin(async (c) => {
    for (const role of roles) await ensureRole(c, role);
    await createMissing(c, [
      bindingTo(CHART_NAMESPACE_ROLES.worker, user("occ-worker")),
      bindingTo(CHART_NAMESPACE_ROLES.api, user("occ-api")),
      bindingTo(WORKER_TENANT_BINDING_ROLE, user("occ-worker")),
    ]);
  });
}

/**
 * What an operator does per tenant namespace: bind a tenant role to the worker or the API.
 * Returns once the API server's RBAC authorizer grants it: the authorizer reads RoleBindings
 * from its own informer, so right after the create a write may still be refused by RBAC (seen
 * on a quiet CI machine), and a test expecting another refusal — an admission policy's — would
 * read RBAC's instead.
 */
export async function bindTenantRole(
  namespace: string,
  identity: Extract<ClusterIdentity, "occ-worker" | "occ-api">,
): Promise<void> {
  const role = identity === "occ-worker" ? "worker" : "api";
  await asAdmin((c) => createMissing(c, [tenantRoleBinding(namespace, role, user(identity))]));
  await untilGranted(identity, namespace);
}

/**
 * What an operator does to revoke a tenant role: deletes the identity's tenant RoleBinding in
 * `namespace` (UID precondition), and returns once the RBAC authorizer denies it.
 */
export async function revokeTenantRole(
  namespace: string,
  identity: Extract<ClusterIdentity, "occ-worker" | "occ-api">,
): Promise<void> {
  const role = identity === "occ-worker" ? "worker" : "api";
  const name = tenantRoleBinding(namespace, role, user(identity)).metadata.name;
  await asAdmin(async (c) => {
    const rb = await c.get("RoleBinding", { name, namespace });
    await c.delete("RoleBinding", { name, namespace }, { uid: rb.metadata.uid ?? "" });
  });
  await untilGranted(identity, namespace, false);
}

/** Polls a SelfSubjectAccessReview as `identity` until it may (or may not) create ConfigMaps. */
function untilGranted(identity: ClusterIdentity, namespace: string, allowed = true): Promise<void> {
  return untilAccess(inject("env").kubeconfigs[identity], identity, namespace, allowed);
}

/**
 * Polls a SelfSubjectAccessReview as the identity of `kubeconfig` until the RBAC authorizer
 * answers `allowed` for creating ConfigMaps in `namespace` (it reads RoleBindings from its own
 * informer, so a grant or a revocation takes effect a moment after the write).
 */
export async function untilAccess(
  kubeconfig: string,
  who: string,
  namespace: string,
  allowed: boolean,
): Promise<void> {
  const c = createObjectClient(loadKubeConfig(kubeconfig));
  const review = {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    spec: { resourceAttributes: { namespace, verb: "create", resource: "configmaps" } },
  };
  try {
    await eventually(
      `RBAC ${allowed ? "grants" : "no longer grants"} ${who} its tenant role in ${namespace}`,
      async () => {
        const answer = await c.create("SelfSubjectAccessReview", review);
        return (answer.status?.allowed === true) === allowed;
      },
      30_000,
    );
  } finally {
    c.close();
  }
}

/**
 * The preprovisioned profile's worker and API namespace ClusterRoles, rendered by the real helm
 * from ci/preprovisioned-values.yaml with the given binding, returned as `[worker, api]` like
 * `preprovisionedClusterRbac` (src/drivers/kubernetes/rbac-objects.ts). `names` renames them
 * (the rules are untouched) so that a test can create them beside the normal profile's roles
 * in the shared test cluster. The rendered RBAC depends on the namespace ID only; `uid` is
 * needed to render at all and defaults to a placeholder (tests create identities before the
 * namespace exists).
 */
export async function preprovisionedChartClusterRoles(
  binding: { readonly namespaceId: string; readonly uid?: string },
  names: { readonly worker: string; readonly api: string } = CHART_NAMESPACE_ROLES,
): Promise<readonly [ChartClusterRole, ChartClusterRole]> {
  const uid = binding.uid ?? "00000000-0000-4000-8000-000000000000";
  const objects = await renderChart({
    valuesFiles: [CI_VALUES.preprovisioned],
    values: { preprovisionedNamespace: { namespaceId: binding.namespaceId, uid } },
  });
  const roles = clusterRoles(objects);
  const pick = (rendered: string, name: string): ChartClusterRole => {
    const role = roles.find((r) => r.metadata.name === rendered);
    if (role === undefined) throw new Error(`the chart rendered no ClusterRole ${rendered}`);
    return { ...role, metadata: { name } };
  };
  return [
    pick(CHART_NAMESPACE_ROLES.worker, names.worker),
    pick(CHART_NAMESPACE_ROLES.api, names.api),
  ];
}
