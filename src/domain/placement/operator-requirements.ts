/**
 * What the operator must have prepared in an external namespace beyond its markers, checked
 * read-only (placement.md §4.2 steps 3 and 5, §2):
 *
 * - the tenant RoleBindings of the worker and the API (and the worker's OpenShell binding when
 *   OpenShell is in use): without the worker's, adoption stays pending; without the API's,
 *   every Configuration and Secret call answers 503;
 * - the labels a Sandbox Driver requires on the namespace (OpenShell's
 *   `gateway.operatorNamespaceLabels`): the operator sets them, OCC never writes a label of an
 *   external namespace other than its binding keys, so a missing one is a failing requirement
 *   with the exact label to add.
 */
import type { ObjectMeta, RbacSubject, StringMap } from "./k8s-objects.js";
import { violation, type Violation } from "./violations.js";

/** A RoleBinding or ClusterRoleBinding as read: its role and subjects. */
export interface BindingLike {
  readonly roleRef?:
    { readonly kind?: string | undefined; readonly name?: string | undefined } | undefined;
  readonly subjects?:
    | readonly {
        readonly kind?: string | undefined;
        readonly name?: string | undefined;
        readonly namespace?: string | undefined;
      }[]
    | undefined;
}

/** One tenant RoleBinding adoption needs. */
export interface RequiredGrant {
  /** Who it is for, as the message says it: `worker`, `API`, `worker (OpenShell)`. */
  readonly who: string;
  readonly subject: RbacSubject;
  /** The ClusterRole it must bind. */
  readonly clusterRole: string;
  /** The RoleBinding `occ namespaces grants` prints for it. */
  readonly bindingName: string;
}

/** `<namespace>:<serviceaccount>` or `user:<name>`, as `occ namespaces grants` takes it. */
export function subjectText(subject: RbacSubject): string {
  return subject.kind === "User"
    ? `user:${subject.name}`
    : `${subject.namespace ?? ""}:${subject.name}`;
}

/**
 * One violation per required grant no binding holds: a RoleBinding in the namespace or a
 * ClusterRoleBinding (`bindings` holds both) whose roleRef is the ClusterRole and whose subjects
 * name the identity exactly.
 */
export function missingGrantViolations(
  namespace: string,
  bindings: readonly BindingLike[],
  required: readonly RequiredGrant[],
): Violation[] {
  return required
    .filter(
      (grant) =>
        !bindings.some(
          (b) =>
            b.roleRef?.kind === "ClusterRole" &&
            b.roleRef.name === grant.clusterRole &&
            (b.subjects ?? []).some((s) => subjectMatches(s, grant.subject)),
        ),
    )
    .map((grant) =>
      violation(
        "role-binding",
        "KUBERNETES_PERMISSION_PENDING",
        `the ${grant.who} (${subjectText(grant.subject)}) has no RoleBinding to ClusterRole ${grant.clusterRole} in ${namespace}; grant it: kubectl create rolebinding ${grant.bindingName} -n ${namespace} --clusterrole ${grant.clusterRole} ${
          grant.subject.kind === "User"
            ? `--user ${grant.subject.name}`
            : `--serviceaccount ${grant.subject.namespace ?? ""}:${grant.subject.name}`
        } (or, once the Namespace exists, occ namespaces grants <id>)`,
        grant.bindingName,
      ),
    );
}

function subjectMatches(
  s: NonNullable<BindingLike["subjects"]>[number],
  subject: RbacSubject,
): boolean {
  return subject.kind === "User"
    ? s.kind === "User" && s.name === subject.name
    : s.kind === "ServiceAccount" && s.name === subject.name && s.namespace === subject.namespace;
}

/**
 * One violation per required label the namespace lacks or holds with another value; the
 * message is the exact label to add.
 */
export function operatorLabelViolations(
  namespace: string,
  metadata: ObjectMeta | undefined,
  required: StringMap,
  setting: string,
): Violation[] {
  return Object.entries(required)
    .filter(([key, value]) => metadata?.labels?.[key] !== value)
    .map(([key, value]) =>
      violation(
        "operator-label",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        `missing label ${key}=${value} (${setting}): kubectl label namespace ${namespace} --overwrite ${key}=${value} — OCC never writes it on an external namespace`,
        key,
      ),
    );
}
