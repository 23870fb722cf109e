/**
 * Are the tenant RoleBindings of the preprovisioned namespace in place? (preprovisioned.md §6.)
 * One check, used by the worker's and the API's startup (a warning with the manifest: a missing
 * RoleBinding keeps the Namespace pending or the API's tenant operations at 503, it does not
 * stop the process) and by `occ preprovisioned verify` (a failing requirement).
 *
 * How, under the profile's RBAC (the chart grants `get` on one namespace and nothing else
 * cluster-wide, so RoleBindings cannot be listed): the identity asks the API server which
 * rules it holds in the namespace — a SelfSubjectRulesReview, which the built-in
 * `system:basic-user` role lets every authenticated identity create — and the rules must cover
 * its tenant role (`preprovisioned-grants.ts` decides). Who it is comes from a
 * SelfSubjectReview, so the manifest that fixes a gap names the right subject. The review
 * answers for the caller only: the worker checks the worker's and the OpenShell bindings, the
 * API its own; `verify` authenticates as both (the Installation's `kubernetes.kubeconfig` and
 * `kubernetes.apiKubeconfig`).
 */
import { stringify } from "yaml";
import {
  describePermissions,
  subjectOfUsername,
  uncoveredPermissions,
  type FailedRequirement,
  type GrantRule,
} from "../../domain/index.js";
import { isKubeError, type ObjectClient } from "./client/index.js";
import type { TenantGrant } from "../preprovisioned-cluster.js";
import {
  OPENSHELL_TENANT_ROLE,
  openshellTenantRoleBinding,
  tenantRoleBinding,
  type RbacObject,
  type RbacSubject,
} from "./rbac-objects.js";
import {
  OPENSHELL_TENANT_READ_RULES,
  TENANT_API_RULES,
  TENANT_CLUSTER_ROLES,
  TENANT_WORKER_RULES,
} from "./rbac-rules.js";

const GRANTS: Readonly<
  Record<
    TenantGrant,
    {
      readonly role: string;
      readonly rules: readonly GrantRule[];
      readonly binding: (ns: string, who: RbacSubject) => RbacObject;
    }
  >
> = {
  worker: {
    role: TENANT_CLUSTER_ROLES.worker,
    rules: TENANT_WORKER_RULES,
    binding: (ns, who) => tenantRoleBinding(ns, "worker", who),
  },
  api: {
    role: TENANT_CLUSTER_ROLES.api,
    rules: TENANT_API_RULES,
    binding: (ns, who) => tenantRoleBinding(ns, "api", who),
  },
  openshell: {
    role: OPENSHELL_TENANT_ROLE,
    rules: OPENSHELL_TENANT_READ_RULES,
    binding: (ns, who) => openshellTenantRoleBinding(ns, who),
  },
};

/**
 * Every tenant role of `grants` that the identity behind `client` does not fully hold in
 * `namespace`, each with the RoleBinding manifest that fixes it. `fallback` is the subject
 * named in that manifest when the API server cannot say who the caller is.
 */
export async function tenantGrantFailures(
  client: ObjectClient,
  namespace: string,
  grants: readonly TenantGrant[],
  fallback: RbacSubject,
): Promise<FailedRequirement[]> {
  const review = await client.create("SelfSubjectRulesReview", {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectRulesReview",
    spec: { namespace },
  });
  const held = review.status?.resourceRules ?? [];
  const failures: FailedRequirement[] = [];
  let who: RbacSubject | null = null;
  for (const grant of grants) {
    const { role, rules, binding } = GRANTS[grant];
    const missing = uncoveredPermissions(rules, held);
    if (missing.length === 0) continue;
    who ??= await callerSubject(client, fallback);
    failures.push({
      requirement: `${describeSubject(who)} holds ClusterRole ${role} in ${namespace} (a RoleBinding there; missing: ${describePermissions(missing)})`,
      fix: `kubectl apply -f - with this RoleBinding (also in occ preprovisioned render):\n${stringify(binding(namespace, who))}`,
    });
  }
  return failures;
}

async function callerSubject(client: ObjectClient, fallback: RbacSubject): Promise<RbacSubject> {
  try {
    const review = await client.create("SelfSubjectReview", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    const username = review.status?.userInfo?.username;
    return username === undefined ? fallback : subjectOfUsername(username);
  } catch {
    return fallback; // an older API server without SelfSubjectReview: name the default
  }
}

function describeSubject(who: RbacSubject): string {
  return who.kind === "ServiceAccount"
    ? `ServiceAccount ${who.namespace ?? ""}/${who.name}`
    : `User ${who.name}`;
}

/**
 * The worker's view of the API's binding: the rules review answers for the caller only, so the
 * worker `get`s the RoleBinding `occ preprovisioned render` creates for the API by name (the
 * chart's preprovisioned OpenShell tenant role grants `get` on RoleBindings in the namespace).
 * Absent → a failing requirement with the manifest; unreadable (that grant is missing itself,
 * and reported as such) → nothing to add. The API's own startup checks its effective rules.
 */
export async function apiBindingFailure(
  client: ObjectClient,
  namespace: string,
  api: RbacSubject,
): Promise<FailedRequirement | null> {
  const manifest = tenantRoleBinding(namespace, "api", api);
  const name = manifest.metadata.name;
  try {
    const found = await client.find("RoleBinding", { name, namespace });
    if (found !== undefined) return null;
  } catch (err) {
    if (isKubeError(err, "forbidden")) return null;
    throw err;
  }
  return {
    requirement: `RoleBinding ${name} (the API's tenant role ${TENANT_CLUSTER_ROLES.api}) exists in ${namespace}`,
    fix: `kubectl apply -f - with this RoleBinding (also in occ preprovisioned render):\n${stringify(manifest)}`,
  };
}
