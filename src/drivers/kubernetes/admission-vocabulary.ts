/**
 * The vocabulary of OCC's ValidatingAdmissionPolicies (see admission-policies.ts): their names,
 * what varies between installations, the identities they hold for, and each rule's refusal
 * message (documented in the chart README and docs/operations.md).
 */
import type { RbacSubject } from "./rbac-objects.js";

/** The names of the three policies (each with a binding of the same name). */
export const ADMISSION_POLICY_NAMES = {
  namespaces: "openclaw-enterprise-namespaces",
  ownedObjects: "openclaw-enterprise-owned-objects",
  roleBindings: "openclaw-enterprise-role-bindings",
} as const;

/** What varies between installations; everything else is fixed. */
export interface AdmissionPolicyOptions {
  /**
   * The worker's and the API's identities: the policies hold for their usernames, and a tenant
   * RoleBinding may name only them.
   */
  readonly subjects: readonly RbacSubject[];
  /** OpenShell `gateway.operatorNamespaceLabels`: labels the worker may set on a bound namespace. */
  readonly openshellNamespaceLabels: Readonly<Record<string, string>>;
  /** The RoleBindings declared in OpenShell `gateway.operatorWorkspaceResources`. */
  readonly declaredRoleBindings: readonly DeclaredRoleBinding[];
}

/** A declared RoleBinding, as the policy compares it: its name and its roleRef. */
export interface DeclaredRoleBinding {
  readonly kind: string;
  readonly name: string;
  readonly role: string;
}

/** The username Kubernetes gives a ServiceAccount's tokens. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The username of a subject's requests. */
export function usernameOf(s: RbacSubject): string {
  return s.kind === "ServiceAccount" ? serviceAccountUsername(s.namespace ?? "", s.name) : s.name;
}

/** A subject as the RoleBinding policy compares it: `kind:namespace:name`. */
export function subjectKey(s: RbacSubject): string {
  return `${s.kind}:${s.namespace ?? ""}:${s.name}`;
}

/** The start of every refusal message, so an operator can tell it from an RBAC refusal. */
export const REFUSAL_PREFIX = "openclaw-enterprise:";

/** The refusal message of each rule (documented in the chart README and docs/operations.md). */
export const ADMISSION_MESSAGES = {
  subresource: `${REFUSAL_PREFIX} OCC never writes a namespace's status or finalize subresource`,
  createName: `${REFUSAL_PREFIX} OCC creates only namespaces named oce-<15 hex> (the managed name form)`,
  createMarkers: `${REFUSAL_PREFIX} OCC creates only namespaces carrying the managed markers (app.kubernetes.io/managed-by=openclaw-enterprise, the same tenant ID in label openclaw.dev/namespace and annotation openclaw.dev/namespace-id, restricted Pod Security labels, no lifecycle annotation)`,
  deleteNamespace: `${REFUSAL_PREFIX} OCC deletes only the managed namespaces it created: app.kubernetes.io/managed-by=openclaw-enterprise, a tenant marker, no openclaw.dev/namespace-lifecycle annotation and a managed name (oce-<hash>)`,
  foreignKeys: `${REFUSAL_PREFIX} OCC changes only its own keys on a namespace; an operator's label or annotation (app.kubernetes.io/managed-by and openclaw.dev/namespace-lifecycle included) is never added, changed or removed`,
  tenantMarkers: `${REFUSAL_PREFIX} OCC never changes or removes a namespace's tenant markers (openclaw.dev/namespace, openclaw.dev/namespace-id, openclaw.dev/gateway-namespace)`,
  bindExternal: `${REFUSAL_PREFIX} OCC binds a tenant only to a namespace annotated openclaw.dev/namespace-lifecycle=external (or one it manages), with the same ID in every tenant marker`,
  ownedOld: `${REFUSAL_PREFIX} OCC changes or deletes only objects carrying its ownership markers (label app.kubernetes.io/managed-by=openclaw-enterprise, and the same tenant ID in label openclaw.dev/namespace and annotation openclaw.dev/namespace-id)`,
  ownedNew: `${REFUSAL_PREFIX} OCC creates or writes only objects carrying its ownership markers (label app.kubernetes.io/managed-by=openclaw-enterprise, and the same tenant ID in label openclaw.dev/namespace and annotation openclaw.dev/namespace-id)`,
  ownedTenant: `${REFUSAL_PREFIX} an object OCC owns keeps its tenant, and that tenant is the one its namespace is bound to (label openclaw.dev/namespace)`,
  bindRole: `${REFUSAL_PREFIX} OCC binds only the tenant ClusterRoles openclaw-enterprise-tenant-worker and openclaw-enterprise-tenant-api, or a RoleBinding declared in openshell.gateway.operatorWorkspaceResources`,
  bindNamespace: `${REFUSAL_PREFIX} OCC binds the tenant roles only in a managed namespace it created, for that namespace's tenant; the operator grants them in external and preprovisioned namespaces (occ namespaces grants)`,
  bindSubjects: `${REFUSAL_PREFIX} OCC binds the tenant roles only to the worker's and the API's own identities`,
} as const;
