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
 * How long an access review's "allowed" for a grant that is not a visible tenant RoleBinding (a
 * ClusterRoleBinding, a group, …) is taken as still true: the API server's own webhook
 * authorizer keeps an allowed answer for 5 minutes by default. Without it, every pass of every
 * such tenant — a full resync of 2,000 tenants — cost one review each (P8's record of
 * 2026-12-03: 4,001 SelfSubjectAccessReviews in the idle window). A namespace's denial is never
 * kept; the cluster-wide answer is kept either way (a cluster-wide "no" only means each
 * namespace is asked).
 */
export const GRANT_MEMO_MS = 5 * 60_000;

/** The scope of an access review for every namespace at once (SSAR `namespace: ""`). */
export const EVERY_NAMESPACE = "";

/**
 * Recent access reviews of the worker's grant, by scope: a namespace, or
 * {@link EVERY_NAMESPACE} (one memo per Compute Driver).
 */
export class GrantMemo {
  private readonly answers = new Map<
    string,
    { readonly allowed: boolean; readonly until: number }
  >();

  constructor(private readonly now: () => number = Date.now) {}

  /** The answer of a review of `scope` made within {@link GRANT_MEMO_MS}, or `undefined`. */
  answer(scope: string): boolean | undefined {
    const kept = this.answers.get(scope);
    if (kept === undefined) return undefined;
    if (kept.until > this.now()) return kept.allowed;
    this.answers.delete(scope);
    return undefined;
  }

  remember(scope: string, allowed: boolean): void {
    this.answers.set(scope, { allowed, until: this.now() + GRANT_MEMO_MS });
  }

  forget(scope: string): void {
    this.answers.delete(scope);
  }
}

/**
 * A bound namespace's grant over time (lifecycle.md §1–2: a tenant RoleBinding is watched, and
 * authorization revoked is reported): when no RoleBinding in `namespace` names the worker's
 * tenant ClusterRole any more — read from the watch cache, so an unchanged pass still costs no
 * request — the API server is asked, since a grant may have another shape: first once for
 * every namespace (a cluster-wide grant covers them all), then for this one. A denial is the
 * revocation, pending until the operator grants again. Allowed answers are kept in `memo` for
 * {@link GRANT_MEMO_MS}; a namespace's is dropped by any pass that sees a tenant RoleBinding
 * there, so a deleted tenant RoleBinding is still seen at once (its own watch event triggers
 * the pass that sees it). Returns null when permitted.
 */
export async function revokedTenantPermission(
  client: ObjectClient,
  namespace: string,
  memo: GrantMemo,
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
  if (granted) {
    // A review allowed while the cache did not show the RoleBinding yet must not outlive it.
    memo.forget(namespace);
    return null;
  }
  if (memo.answer(namespace) === true) return null;
  let everywhere = memo.answer(EVERY_NAMESPACE);
  if (everywhere === undefined) {
    try {
      everywhere = await mayWriteTenantObjects(client, EVERY_NAMESPACE);
    } catch (err) {
      return outcomeOfKubeError(err, "after-verification", "review its permissions", namespace);
    }
    memo.remember(EVERY_NAMESPACE, everywhere);
  }
  if (everywhere) return null;
  const missing = await missingTenantPermission(client, namespace);
  if (missing === null) memo.remember(namespace, true);
  return missing;
}
