import {
  API_NAMESPACE_RULES,
  OPENSHELL_TENANT_ROLE,
  OPENSHELL_TENANT_READ_RULES,
  OPENSHELL_TENANT_RULES,
  TENANT_API_RULES,
  TENANT_CLUSTER_ROLES,
  TENANT_WORKER_RULES,
  WORKER_NAMESPACE_RULES,
  WORKER_TENANT_BINDING_ROLE,
  WORKER_TENANT_BINDING_RULES,
  openshellTenantRules,
  type PolicyRule,
} from "./rbac-rules.js";
import { isKubeError, type Kind, type KubeObjectLike, type ObjectClient } from "./client/index.js";
import type { RbacSubject } from "../../domain/placement/k8s-objects.js";

export type { RbacSubject };

export interface RbacObject extends KubeObjectLike {
  readonly kind: "ClusterRole" | "ClusterRoleBinding" | "RoleBinding";
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly rules?: readonly PolicyRule[];
  readonly roleRef?: { readonly apiGroup: string; readonly kind: string; readonly name: string };
  readonly subjects?: readonly {
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
    readonly apiGroup?: string;
  }[];
}

const GROUP = "rbac.authorization.k8s.io";
const subject = (s: RbacSubject) =>
  s.kind === "User" ? { apiGroup: GROUP, kind: "User", name: s.name } : { ...s };
const clusterRole = (name: string, rules: readonly PolicyRule[]): RbacObject => ({
  apiVersion: `${GROUP}/v1`,
  kind: "ClusterRole",
  metadata: { name },
  rules,
});
const roleRef = (name: string) => ({ apiGroup: GROUP, kind: "ClusterRole", name });

/** The names of the cluster-wide namespace roles (the chart renders the same). */
export const NAMESPACE_CLUSTER_ROLES = {
  worker: "openclaw-enterprise-worker-namespaces",
  api: "openclaw-enterprise-api-namespaces",
} as const;

/**
 * The cluster-wide RBAC the chart grants (normal profile, admission policies enabled): the
 * worker's and the API's namespace roles, bound to their identities; the two tenant roles
 * rendered but NOT bound (bound per tenant namespace: by the worker in a managed namespace, by
 * the operator elsewhere); and the worker's role for binding them.
 */
export function chartClusterRbac(worker: RbacSubject, api: RbacSubject): readonly RbacObject[] {
  const binding = (role: string, who: RbacSubject): RbacObject => ({
    apiVersion: `${GROUP}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name: role },
    roleRef: roleRef(role),
    subjects: [subject(who)],
  });
  return [
    clusterRole(NAMESPACE_CLUSTER_ROLES.worker, WORKER_NAMESPACE_RULES),
    clusterRole(NAMESPACE_CLUSTER_ROLES.api, API_NAMESPACE_RULES),
    clusterRole(TENANT_CLUSTER_ROLES.worker, TENANT_WORKER_RULES),
    clusterRole(TENANT_CLUSTER_ROLES.api, TENANT_API_RULES),
    binding(NAMESPACE_CLUSTER_ROLES.worker, worker),
    binding(NAMESPACE_CLUSTER_ROLES.api, api),
    clusterRole(WORKER_TENANT_BINDING_ROLE, WORKER_TENANT_BINDING_RULES),
    binding(WORKER_TENANT_BINDING_ROLE, worker),
  ];
}

/**
 * The tenant RoleBinding the worker creates in a managed namespace it created: the operator's
 * RoleBinding of {@link tenantRoleBinding} plus the tenant ownership markers, so that the
 * admission policies recognise it as OCC's.
 */
export function ownedTenantRoleBinding(
  namespace: string,
  role: "worker" | "api",
  who: RbacSubject,
  markers: {
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
  },
): RbacObject {
  const binding = tenantRoleBinding(namespace, role, who);
  return {
    ...binding,
    metadata: { ...binding.metadata, labels: markers.labels, annotations: markers.annotations },
  };
}

/** The RoleBinding an operator creates in one tenant namespace for the worker or the API. */
export function tenantRoleBinding(
  namespace: string,
  role: "worker" | "api",
  who: RbacSubject,
): RbacObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: "RoleBinding",
    metadata: { name: `openclaw-enterprise-tenant-${role}`, namespace },
    roleRef: roleRef(TENANT_CLUSTER_ROLES[role]),
    subjects: [subject(who)],
  };
}

/**
 * Development only (`occ dev up`): binds the tenant roles cluster-wide, so Namespaces become
 * ready without hand-made RoleBindings. Never rendered by the chart.
 */
export function devTenantRolesClusterWide(
  worker: RbacSubject,
  api: RbacSubject,
): readonly RbacObject[] {
  return (["worker", "api"] as const).map((role): RbacObject => ({
    apiVersion: `${GROUP}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name: `occ-dev-tenant-${role}-everywhere` },
    roleRef: roleRef(TENANT_CLUSTER_ROLES[role]),
    subjects: [subject(role === "worker" ? worker : api)],
  }));
}

/** Creates each object unless it already exists (as administrator; idempotent). */
export async function createMissing(
  client: ObjectClient,
  objects: readonly RbacObject[],
): Promise<void> {
  for (const obj of objects) {
    try {
      await client.create(obj.kind satisfies Kind, obj);
    } catch (err) {
      if (!(isKubeError(err, "conflict") && err.reason === "AlreadyExists")) throw err;
    }
  }
}

/** The rules of the preprovisioned profile: `get` on exactly one namespace, nothing else. */
export function preprovisionedNamespaceRules(namespaceName: string): readonly PolicyRule[] {
  return [
    { apiGroups: [""], resources: ["namespaces"], verbs: ["get"], resourceNames: [namespaceName] },
  ];
}

/**
 * The cluster-wide roles of the preprovisioned profile (preprovisioned.md §6): the worker and
 * the API may `get` exactly the bound namespace — no namespace `list`, `create`, `patch` or
 * `delete`. Returned as `[worker, api]`; the names default to the chart's and may be
 * overridden (tests give each case its own roles).
 */
export function preprovisionedClusterRbac(
  namespaceName: string,
  names: { readonly worker: string; readonly api: string } = NAMESPACE_CLUSTER_ROLES,
): readonly RbacObject[] {
  const rules = preprovisionedNamespaceRules(namespaceName);
  return [clusterRole(names.worker, rules), clusterRole(names.api, rules)];
}

/** A ClusterRoleBinding of `role` to one subject. */
export function clusterRoleBinding(name: string, role: string, who: RbacSubject): RbacObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name },
    roleRef: roleRef(role),
    subjects: [subject(who)],
  };
}

/** Kept importable from here; the rules are stated in rbac-rules.ts with the others. */
export { OPENSHELL_TENANT_ROLE, OPENSHELL_TENANT_READ_RULES, OPENSHELL_TENANT_RULES };

/**
 * The OpenShell tenant ClusterRole (unbound) of one profile: the same name in both, the full
 * rules in the normal profile, read-only ones in the preprovisioned profile.
 */
export function openshellTenantClusterRole(profile: "normal" | "preprovisioned"): RbacObject {
  return clusterRole(OPENSHELL_TENANT_ROLE, openshellTenantRules(profile));
}

/** The RoleBinding of the OpenShell tenant role to the worker in one tenant namespace. */
export function openshellTenantRoleBinding(namespace: string, who: RbacSubject): RbacObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: "RoleBinding",
    metadata: { name: OPENSHELL_TENANT_ROLE, namespace },
    roleRef: roleRef(OPENSHELL_TENANT_ROLE),
    subjects: [subject(who)],
  };
}
