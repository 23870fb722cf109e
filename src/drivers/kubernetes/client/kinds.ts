/**
 * Every Kubernetes kind the product touches, with where it lives in the API. This table is the
 * only place that knows a kind's group, version, plural or scope: the object client builds
 * every path from it, so no code branches per kind.
 */
export const KINDS = {
  Namespace: { apiVersion: "v1", plural: "namespaces", namespaced: false },
  ResourceQuota: { apiVersion: "v1", plural: "resourcequotas", namespaced: true },
  LimitRange: { apiVersion: "v1", plural: "limitranges", namespaced: true },
  ConfigMap: { apiVersion: "v1", plural: "configmaps", namespaced: true },
  Secret: { apiVersion: "v1", plural: "secrets", namespaced: true },
  ServiceAccount: { apiVersion: "v1", plural: "serviceaccounts", namespaced: true },
  Service: { apiVersion: "v1", plural: "services", namespaced: true },
  PersistentVolumeClaim: { apiVersion: "v1", plural: "persistentvolumeclaims", namespaced: true },
  Event: { apiVersion: "v1", plural: "events", namespaced: true },
  NetworkPolicy: {
    apiVersion: "networking.k8s.io/v1",
    plural: "networkpolicies",
    namespaced: true,
  },
  Deployment: { apiVersion: "apps/v1", plural: "deployments", namespaced: true },
  Pod: { apiVersion: "v1", plural: "pods", namespaced: true },
  Role: { apiVersion: "rbac.authorization.k8s.io/v1", plural: "roles", namespaced: true },
  RoleBinding: {
    apiVersion: "rbac.authorization.k8s.io/v1",
    plural: "rolebindings",
    namespaced: true,
  },
  ClusterRole: {
    apiVersion: "rbac.authorization.k8s.io/v1",
    plural: "clusterroles",
    namespaced: false,
  },
  ClusterRoleBinding: {
    apiVersion: "rbac.authorization.k8s.io/v1",
    plural: "clusterrolebindings",
    namespaced: false,
  },
  ValidatingAdmissionPolicy: {
    apiVersion: "admissionregistration.k8s.io/v1",
    plural: "validatingadmissionpolicies",
    namespaced: false,
  },
  ValidatingAdmissionPolicyBinding: {
    apiVersion: "admissionregistration.k8s.io/v1",
    plural: "validatingadmissionpolicybindings",
    namespaced: false,
  },
  /** Create-only: asks whether this identity may do something (no permission needed). */
  SelfSubjectAccessReview: {
    apiVersion: "authorization.k8s.io/v1",
    plural: "selfsubjectaccessreviews",
    namespaced: false,
  },
  /** Create-only: which rules the caller holds in a namespace (every identity may ask). */
  SelfSubjectRulesReview: {
    apiVersion: "authorization.k8s.io/v1",
    plural: "selfsubjectrulesreviews",
    namespaced: false,
  },
  /** Create-only: who the caller is authenticated as (every identity may ask). */
  SelfSubjectReview: {
    apiVersion: "authentication.k8s.io/v1",
    plural: "selfsubjectreviews",
    namespaced: false,
  },
} as const satisfies Record<string, { apiVersion: string; plural: string; namespaced: boolean }>;

export type Kind = keyof typeof KINDS;

/** Identifies one object: a cluster-scoped kind ignores `namespace`; a namespaced one needs it. */
export interface ObjectRef {
  readonly name: string;
  readonly namespace?: string;
}

function base(kind: Kind, namespace: string | undefined): string {
  const { apiVersion, plural, namespaced } = KINDS[kind];
  const root = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  if (!namespaced) return `${root}/${plural}`;
  if (namespace === undefined || namespace === "") {
    throw new Error(`${kind} is namespaced: a namespace is required`);
  }
  return `${root}/namespaces/${encodeURIComponent(namespace)}/${plural}`;
}

/** The collection path of a kind (optionally inside one namespace). */
export function collectionPath(kind: Kind, namespace?: string): string {
  return base(kind, namespace);
}

/** The collection of a kind across every namespace (a cluster-wide list or watch). */
export function clusterCollectionPath(kind: Kind): string {
  const { apiVersion, plural } = KINDS[kind];
  return `${apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`}/${plural}`;
}

/** The path of one object. */
export function objectPath(kind: Kind, ref: ObjectRef): string {
  return `${base(kind, ref.namespace)}/${encodeURIComponent(ref.name)}`;
}
