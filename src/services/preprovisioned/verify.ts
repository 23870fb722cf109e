/**
 * `occ preprovisioned verify` (preprovisioned.md §7): exactly the controller's checks, run
 * read-only, collecting EVERY failing requirement with its fix. Adoption passes when the list
 * is empty.
 *
 * The checks, in the order the controller meets them: the §2 startup prerequisites; the
 * namespace's §3 requirements (read by name); the tenant RoleBindings, as the worker's startup
 * checks them (and the API's, as the API's startup does, when an API client is given); the
 * sealed NetworkPolicy set — by the same decision function the worker's pass uses, admitting
 * the egress policy of each Agent that exists (read from the database); OCC's own quota and
 * limit range, if present, unchanged; the OpenShell namespace labels and declared workspace
 * resources.
 */
import type { InstallationConfig } from "../../config/installation-config.js";
import {
  AGENT_EGRESS_PREFIX,
  currentManagedName,
  desiredOwnedObjects,
  ownedObjectAction,
  preprovisionedNamespaceFailures,
  sealedPolicyFailures,
  sealedPolicySet,
  type FailedRequirement,
  type PreprovisionedBinding,
} from "../../domain/index.js";
import {
  declaredPolicies,
  unlessForbidden,
  type PreprovisionedCluster,
} from "../../drivers/preprovisioned-cluster.js";
import type { AgentIdLookup } from "../../drivers/factory.js";
import {
  defaultSubjects,
  prerequisitesRefusal,
  unmetPrerequisites,
  workerGrantFailures,
} from "./startup.js";
import { preprovisionedExpectationOf } from "../../drivers/profile.js";

/** What verify may use beyond the worker's identity. */
export interface VerifyOptions {
  /** The API's identity (`kubernetes.apiKubeconfig`): its tenant role is checked as well. */
  readonly api?: PreprovisionedCluster;
  /**
   * The tenant's existing Agents (from the database). Without it, an `agent-egress-…` policy
   * cannot be verified and is reported as such.
   */
  readonly agentIds?: AgentIdLookup;
}

/** Every failing requirement; empty when adoption would pass. */
export async function verifyPreprovisioned(
  cluster: PreprovisionedCluster,
  config: InstallationConfig,
  binding: PreprovisionedBinding,
  opts: VerifyOptions = {},
): Promise<FailedRequirement[]> {
  const failures: FailedRequirement[] = [];
  const unmet = unmetPrerequisites(config);
  if (unmet.length > 0) {
    failures.push({
      requirement: prerequisitesRefusal(unmet),
      fix: unmet.map((u) => `set ${u.key} to ${u.fix}`).join("; "),
    });
  }
  const name = currentManagedName(binding.namespaceId);
  const namespace = await cluster.namespace(name);
  failures.push(
    ...preprovisionedNamespaceFailures(namespace, preprovisionedExpectationOf(config, binding)),
  );
  if (namespace === null) return failures;

  failures.push(...(await workerGrantFailures(cluster, config, name)));
  if (opts.api !== undefined) {
    failures.push(...(await opts.api.grantFailures(name, ["api"], defaultSubjects(config).api)));
  }
  // Without the worker's tenant role the reads below are refused; its failure is listed.
  const inside = await unlessForbidden(() => namespaceContents(cluster, config, binding, opts));
  if (inside === null && !failures.some((f) => f.requirement.includes("holds ClusterRole"))) {
    failures.push({
      requirement: `this identity may read NetworkPolicies, quota, limit range and workspace resources in ${name}`,
      fix: "run verify with the worker's kubeconfig, bound to its tenant roles in the namespace",
    });
  }
  failures.push(...(inside ?? []));
  return failures;
}

async function namespaceContents(
  cluster: PreprovisionedCluster,
  config: InstallationConfig,
  binding: PreprovisionedBinding,
  opts: VerifyOptions,
): Promise<FailedRequirement[]> {
  const failures: FailedRequirement[] = [];
  const id = binding.namespaceId;
  const name = currentManagedName(id);
  const policies = await cluster.networkPolicies(name);
  const agentPolicies = policies.filter((p) =>
    (p.metadata.name ?? "").startsWith(AGENT_EGRESS_PREFIX),
  );
  if (opts.agentIds === undefined && agentPolicies.length > 0) {
    failures.push({
      requirement: `the Agent egress policies (${agentPolicies.map((p) => p.metadata.name).join(", ")}) belong to Agents that exist`,
      fix: "run verify with --database-url (or $OCC_DATABASE_URL) so the Agents can be read",
    });
  }
  const set = sealedPolicySet({
    tenantId: id,
    namespace: name,
    settings: config.compute,
    egressAuthority: config.egressAuthority,
    agentIds: opts.agentIds === undefined ? [] : await opts.agentIds(id),
    declared: declaredPolicies(config.openshell),
  });
  const unverifiable = opts.agentIds === undefined ? new Set(agentPolicies) : new Set();
  failures.push(
    ...sealedPolicyFailures(
      policies.filter((p) => !unverifiable.has(p)),
      set,
    ),
  );
  for (const object of desiredOwnedObjects(id, name, config.compute)) {
    if (object.kind === "NetworkPolicy") continue;
    const objectName = object.metadata.name ?? "";
    const live = await cluster.ownedObject(object, name);
    const action = ownedObjectAction(live, object, id);
    if (action.action === "update" || action.action === "stop") {
      failures.push({
        requirement: `${object.kind} ${objectName} is absent or equal to the Installation's`,
        fix: `delete ${object.kind} ${objectName}; OCC creates it`,
      });
    }
  }
  if (config.openshell !== null) {
    failures.push(...(await cluster.openshellFailures(config.openshell, name, id)));
  }
  return failures;
}
