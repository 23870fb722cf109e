/**
 * The Kubernetes permissions the Drivers need, stated once. The Helm chart renders the same
 * rules (its tests compare them with these), the integration tests grant exactly these to the
 * `occ-worker` / `occ-api` identities, and `occ namespaces grants` prints the RoleBindings
 * that bind the tenant roles. No wildcard anywhere.
 */
import { ADMISSION_POLICY_NAMES } from "./admission-vocabulary.js";

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

/**
 * Cluster-wide, for the worker: managed namespaces are created, bound and deleted by it; and
 * read-only `list`/`watch` on the kinds its watches follow (lifecycle.md §1) — namespaces,
 * quotas, limit ranges, NetworkPolicies and RoleBindings — so a change anywhere in a tenant
 * namespace queues that tenant's pass. Never Secrets or ConfigMaps: those stay per namespace.
 * The preprovisioned profile renders none of this (it watches nothing).
 */
export const WORKER_NAMESPACE_RULES: readonly PolicyRule[] = [
  {
    apiGroups: [""],
    resources: ["namespaces"],
    verbs: ["get", "list", "watch", "create", "patch", "delete"],
  },
  { apiGroups: [""], resources: ["resourcequotas", "limitranges"], verbs: ["list", "watch"] },
  { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: ["list", "watch"] },
  {
    apiGroups: ["rbac.authorization.k8s.io"],
    resources: ["rolebindings"],
    verbs: ["list", "watch"],
  },
];

/**
 * Cluster-wide, for the API, read-only: it resolves a tenant's bound namespace on each
 * operation (`get`, `list`; `watch` for its claimant index of tenant-labelled namespaces,
 * `tenant/claimant-index.ts`); and for the console (`src/drivers/namespace-inspector.ts`) it runs the
 * external-adoption preflight of a candidate (its NetworkPolicies, the RoleBindings in it, the
 * ClusterRoleBindings), shows a tenant namespace's Events and which of OCC's admission policies
 * are present. No write verb, never Secrets or ConfigMaps cluster-wide.
 */
export const API_NAMESPACE_RULES: readonly PolicyRule[] = [
  { apiGroups: [""], resources: ["namespaces"], verbs: ["get", "list", "watch"] },
  { apiGroups: [""], resources: ["events"], verbs: ["list"] },
  { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: ["list"] },
  {
    apiGroups: ["rbac.authorization.k8s.io"],
    resources: ["rolebindings", "clusterrolebindings"],
    verbs: ["list"],
  },
  {
    apiGroups: ["admissionregistration.k8s.io"],
    resources: ["validatingadmissionpolicies", "validatingadmissionpolicybindings"],
    resourceNames: Object.values(ADMISSION_POLICY_NAMES),
    verbs: ["get"],
  },
];

const OWN = ["get", "list", "create", "patch", "delete"] as const;

/** Bound per tenant namespace by the operator: what the worker needs inside it. */
export const TENANT_WORKER_RULES: readonly PolicyRule[] = [
  { apiGroups: [""], resources: ["resourcequotas", "limitranges"], verbs: OWN },
  { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: OWN },
  {
    apiGroups: [""],
    resources: ["configmaps", "secrets", "serviceaccounts", "services", "persistentvolumeclaims"],
    verbs: OWN,
  },
  { apiGroups: ["apps"], resources: ["deployments"], verbs: OWN },
  { apiGroups: [""], resources: ["events"], verbs: ["create"] },
];

/** Bound per tenant namespace by the operator: what the API needs inside it. */
export const TENANT_API_RULES: readonly PolicyRule[] = [
  { apiGroups: [""], resources: ["configmaps", "secrets"], verbs: OWN },
];

/**
 * Cluster-wide, for the worker, only with the admission policies (normal profile): it binds the
 * tenant roles in the managed namespaces it creates. `get` reads an existing binding, `create`
 * adds a missing one, and `bind` names exactly the two tenant roles, so the worker can grant
 * nothing else (Kubernetes refuses a RoleBinding to a role one neither holds nor may `bind`).
 * RBAC cannot limit where the RoleBinding is created: the `openclaw-enterprise-role-bindings`
 * admission policy limits it to managed OCC namespaces and to the worker's and API's identities.
 */
export const WORKER_TENANT_BINDING_RULES: readonly PolicyRule[] = [
  {
    apiGroups: ["rbac.authorization.k8s.io"],
    resources: ["rolebindings"],
    verbs: ["get", "create"],
  },
  {
    apiGroups: ["rbac.authorization.k8s.io"],
    resources: ["clusterroles"],
    resourceNames: ["openclaw-enterprise-tenant-worker", "openclaw-enterprise-tenant-api"],
    verbs: ["bind"],
  },
];

/** The ClusterRole (and its ClusterRoleBinding) of {@link WORKER_TENANT_BINDING_RULES}. */
export const WORKER_TENANT_BINDING_ROLE = "openclaw-enterprise-worker-tenant-bindings";

/** Names of the tenant ClusterRoles the chart renders (unbound). */
export const TENANT_CLUSTER_ROLES = {
  worker: "openclaw-enterprise-tenant-worker",
  api: "openclaw-enterprise-tenant-api",
} as const;

/**
 * The tenant ClusterRole of the OpenShell Sandbox Driver: in the normal profile it applies the
 * operator's declared workspace resources (ServiceAccount, Role, RoleBinding, NetworkPolicy)
 * into the tenant namespace; in the preprovisioned profile it only reads them. Rendered unbound
 * like the other tenant roles; the operator binds it to the worker with a RoleBinding in each
 * tenant namespace where OpenShell is used.
 */
export const OPENSHELL_TENANT_ROLE = "openclaw-enterprise-tenant-openshell";

const OPENSHELL_WRITE = ["get", "create", "patch", "delete"] as const;

/**
 * The rules of {@link OPENSHELL_TENANT_ROLE} in the normal profile. Kubernetes RBAC lets nobody create or update a
 * Role with rules they do not hold, or a RoleBinding to a role whose rules they do not hold,
 * unless they have `escalate` (Roles) or `bind` (the referenced Role or ClusterRole). The
 * declared Role grants what the worker does not hold (e.g. `pods`), so each verb is needed —
 * proven against the real API server, which answers 403 "is attempting to grant RBAC
 * permissions not currently held" without it:
 * - `escalate` on `roles`: create the declared Role, and converge it back after a change;
 * - `bind` on `roles`: create a declared RoleBinding whose `roleRef` is the declared Role;
 * - `bind` on `clusterroles`: create a declared RoleBinding whose `roleRef` is a ClusterRole.
 *
 * These verbs are namespace-scoped: the operator grants this ClusterRole with a RoleBinding
 * inside one tenant namespace only, so they apply to Roles and RoleBindings in that namespace
 * and nowhere else (a RoleBinding never grants a ClusterRole's rules beyond its namespace). The
 * chart never binds it cluster-wide. Within that namespace they make the worker able to grant
 * any namespaced permission there — which is why it is bound per tenant namespace and nowhere
 * else.
 */
export const OPENSHELL_TENANT_RULES: readonly PolicyRule[] = [
  { apiGroups: [""], resources: ["serviceaccounts"], verbs: OPENSHELL_WRITE },
  {
    apiGroups: ["rbac.authorization.k8s.io"],
    resources: ["roles", "rolebindings"],
    verbs: OPENSHELL_WRITE,
  },
  { apiGroups: ["rbac.authorization.k8s.io"], resources: ["roles"], verbs: ["escalate", "bind"] },
  { apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], verbs: ["bind"] },
  { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: OPENSHELL_WRITE },
];

/**
 * The rules of {@link OPENSHELL_TENANT_ROLE} in the preprovisioned profile (preprovisioned.md
 * §4, §6): the hook applies nothing there, it only reads each declared workspace resource
 * (`get` through `ObjectClient.find`) and compares it — so `get` on the four declared kinds and
 * nothing else: no write verb, no `escalate`, no `bind`. The namespace labels it also reads are
 * covered by the profile's cluster role (`get` on exactly the bound namespace). Same role name
 * as in the normal profile; the chart renders one rule set or the other.
 */
export const OPENSHELL_TENANT_READ_RULES: readonly PolicyRule[] = [
  { apiGroups: [""], resources: ["serviceaccounts"], verbs: ["get"] },
  {
    apiGroups: ["rbac.authorization.k8s.io"],
    resources: ["roles", "rolebindings"],
    verbs: ["get"],
  },
  { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: ["get"] },
];

/** The rules of {@link OPENSHELL_TENANT_ROLE} in one profile. */
export function openshellTenantRules(profile: "normal" | "preprovisioned"): readonly PolicyRule[] {
  return profile === "preprovisioned" ? OPENSHELL_TENANT_READ_RULES : OPENSHELL_TENANT_RULES;
}
