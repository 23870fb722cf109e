import { notDone, type NotDone } from "../../../domain/index.js";
import type { KindObject, ObjectClient } from "../client/index.js";
import { TENANT_CLUSTER_ROLES } from "../rbac-rules.js";
import { outcomeOfKubeError } from "./failures.js";

/**
 * One SelfSubjectAccessReview (every authenticated identity may make one): may the worker
 * create a ResourceQuota in `namespace` — the first write its tenant RoleBinding allows there?
 * A failed request throws the Kubernetes error.
 */
export async function mayWriteTenantObjects(
  client: ObjectClient,
  namespace: string,
): Promise<boolean> {
  const review = {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    spec: { resourceAttributes: { namespace, verb: "create", resource: "resourcequotas" } },
  };
  const answer = await client.create("SelfSubjectAccessReview", review);
  return answer.status?.allowed === true;
}

/**
 * Before the first write into an operator's namespace (placement.md §4.2 step 5): does the
 * worker hold its tenant RoleBinding there? The worker's cluster-wide read rules (list/watch
 * for its caches) mean a read no longer answers 403 when the RoleBinding is missing, so the
 * pass asks the API server directly and stays pending *without writing anything* until the
 * grant exists. The namespace is only bound once the worker can also finish placing the
 * tenant in it. Returns null when permitted.
 */
export async function missingTenantPermission(
  client: ObjectClient,
  namespace: string,
): Promise<NotDone | null> {
  let allowed: boolean;
  try {
    allowed = await mayWriteTenantObjects(client, namespace);
  } catch (err) {
    return outcomeOfKubeError(err, "after-verification", "review its permissions", namespace);
  }
  if (allowed) return null;
  return notDone(
    "KUBERNETES_PERMISSION_PENDING",
    `the worker may not create resourcequotas in namespace ${namespace}: grant the worker ` +
      `RoleBinding (ClusterRole ${TENANT_CLUSTER_ROLES.worker}) there; provisioning resumes by itself`,
  );
}

/**
 * A bound namespace's grant over time (lifecycle.md §1–2: a tenant RoleBinding is watched, and
 * authorization revoked is reported): when no RoleBinding in `namespace` names the worker's
 * tenant ClusterRole any more — read from the watch cache, so an unchanged pass still costs no
 * request — the API server is asked, since a grant may have another shape; a denial is the
 * revocation, pending until the operator grants again. Returns null when permitted.
 */
export async function revokedTenantPermission(
  client: ObjectClient,
  namespace: string,
): Promise<NotDone | null> {
  let bindings: readonly KindObject<"RoleBinding">[];
  try {
    bindings = await client.list("RoleBinding", { namespace });
  } catch (err) {
    return outcomeOfKubeError(err, "after-verification", "list RoleBindings", namespace);
  }
  const granted = bindings.some(
    (b) => b.roleRef?.kind === "ClusterRole" && b.roleRef.name === TENANT_CLUSTER_ROLES.worker,
  );
  return granted ? null : missingTenantPermission(client, namespace);
}
