/**
 * The Kubernetes permissions the Drivers need, stated once. The Helm chart renders the same
 * rules (its tests compare them with these), the integration tests grant exactly these to the
 * `occ-worker` / `occ-api` identities, and `occ namespaces grants` prints the RoleBindings
 * that bind the tenant roles. No wildcard anywhere.
 */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** Cluster-wide, for the worker: managed namespaces are created, bound and deleted by it. */
export const WORKER_NAMESPACE_RULES: readonly PolicyRule[] = [
  {
    apiGroups: [""],
    resources: ["namespaces"],
    verbs: ["get", "list", "create", "patch", "delete"],
  },
];

/** Cluster-wide, for the API: it resolves a tenant's bound namespace on each operation. */
export const API_NAMESPACE_RULES: readonly PolicyRule[] = [
  { apiGroups: [""], resources: ["namespaces"], verbs: ["get", "list"] },
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

/** Names of the tenant ClusterRoles the chart renders (unbound). */
export const TENANT_CLUSTER_ROLES = {
  worker: "openclaw-enterprise-tenant-worker",
  api: "openclaw-enterprise-tenant-api",
} as const;
