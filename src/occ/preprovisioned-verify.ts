/**
 * `occ preprovisioned verify` (preprovisioned.md §7): exactly the controller's checks, run
 * read-only, collecting EVERY failing requirement with its fix. Adoption passes when the list
 * is empty.
 *
 * The checks, in the order the controller meets them: the §2 startup prerequisites; the
 * namespace's §3 requirements (read by name); the sealed NetworkPolicy set; OCC's own quota
 * and limit range, if present, unchanged (the controller refuses a changed one there); the
 * OpenShell namespace labels and declared workspace resources.
 */
import type { InstallationConfig } from "../config/installation-config.js";
import {
  currentManagedName,
  desiredOwnedObjects,
  ownedObjectAction,
  preprovisionedNamespaceFailures,
  sealedPolicyFailures,
  type FailedRequirement,
  type K8sNamespace,
  type NetworkPolicy,
  type OwnedObject,
  type PreprovisionedBinding,
} from "../domain/index.js";
import type { ObjectClient } from "../drivers/kubernetes/client/index.js";
import { declaredPolicies } from "../drivers/openshell/manifests.js";
import { operatorResourceFailures } from "../drivers/openshell/namespace-hook.js";
import {
  checkPreprovisionedPrerequisites,
  preprovisionedExpectationOf,
} from "./preprovisioned-startup.js";

/** Every failing requirement; empty when adoption would pass. */
export async function verifyPreprovisioned(
  client: ObjectClient,
  config: InstallationConfig,
  binding: PreprovisionedBinding,
): Promise<FailedRequirement[]> {
  const failures: FailedRequirement[] = [];
  const prerequisites = checkPreprovisionedPrerequisites(config);
  if (!prerequisites.ok) {
    failures.push({
      requirement: prerequisites.error,
      fix: "configure the bundled Kubernetes Compute and Configuration Drivers, drivers.sandbox: openshell with its openshell settings, network.gatewayRouting, network.egressAuthority, and no execution cluster",
    });
  }
  const name = currentManagedName(binding.namespaceId);
  const namespace = (await client.find<K8sNamespace>("Namespace", { name })) ?? null;
  failures.push(
    ...preprovisionedNamespaceFailures(namespace, preprovisionedExpectationOf(config, binding)),
  );
  if (namespace === null) return failures;

  const id = binding.namespaceId;
  const desired = desiredOwnedObjects(id, name, config.compute);
  const policies = await client.list<NetworkPolicy>("NetworkPolicy", { namespace: name });
  const rendered = desired.filter((o): o is NetworkPolicy => o.kind === "NetworkPolicy");
  failures.push(
    ...sealedPolicyFailures(policies, id, rendered, declaredPolicies(config.openshell)),
  );
  for (const object of desired.filter((o) => o.kind !== "NetworkPolicy")) {
    const objectName = object.metadata.name ?? "";
    const live = await client.find<OwnedObject>(object.kind, { name: objectName, namespace: name });
    const action = ownedObjectAction(live ?? null, object, id);
    if (action.action === "update" || action.action === "stop") {
      failures.push({
        requirement: `${object.kind} ${objectName} is absent or equal to the Installation's`,
        fix: `delete ${object.kind} ${objectName}; OCC creates it`,
      });
    }
  }
  if (config.openshell !== null) {
    failures.push(...(await operatorResourceFailures(client, config.openshell, name, id)));
  }
  return failures;
}
