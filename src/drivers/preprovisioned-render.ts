/**
 * `occ preprovisioned render` (preprovisioned.md §7): everything the operator applies to
 * prepare the preprovisioned namespace, derived from the same functions the controller
 * verifies with — so a rendered namespace passes verification by construction.
 *
 * Order: the Namespace (every label and annotation of the seed's table, the gateway membership
 * computed, the OpenShell namespace labels included), the RoleBindings of the worker and the
 * API to the tenant ClusterRoles (and of the worker to the OpenShell tenant role), then the
 * declared OpenShell resources with their ownership markers.
 */
import { stringify } from "yaml";
import type { InstallationConfig } from "../config/installation-config.js";
import {
  currentManagedName,
  requiredNamespaceMetadata,
  type NamespaceId,
} from "../domain/index.js";
import {
  openshellTenantRoleBinding,
  tenantRoleBinding,
  type RbacSubject,
} from "./kubernetes/rbac-objects.js";
import { workspaceResources } from "./openshell/manifests.js";

/** What to render for. */
export interface RenderInput {
  readonly namespaceId: NamespaceId;
  readonly config: InstallationConfig;
  readonly worker: RbacSubject;
  readonly api: RbacSubject;
}

/** The objects, in apply order. Throws when the configuration lacks gateway routing. */
export function renderPreprovisionedObjects(input: RenderInput): readonly object[] {
  const { namespaceId, config } = input;
  const routing = config.compute.gatewayRouting;
  if (routing === null) {
    throw new Error(
      "network.gatewayRouting is required: the gateway membership label derives from it",
    );
  }
  const name = currentManagedName(namespaceId);
  const metadata = requiredNamespaceMetadata(
    namespaceId,
    routing,
    config.openshell?.operatorNamespaceLabels ?? {},
  );
  const namespace = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: metadata.labels, annotations: metadata.annotations },
  };
  const bindings = [
    tenantRoleBinding(name, "worker", input.worker),
    tenantRoleBinding(name, "api", input.api),
    ...(config.openshell === null ? [] : [openshellTenantRoleBinding(name, input.worker)]),
  ];
  const resources =
    config.openshell === null
      ? []
      : workspaceResources(config.openshell, name, namespaceId).map((r) => r.object);
  return [namespace, ...bindings, ...resources];
}

/** The objects as one multi-document YAML stream for `kubectl apply -f -`. */
export function renderPreprovisionedYaml(input: RenderInput): string {
  return renderPreprovisionedObjects(input)
    .map((object) => stringify(object))
    .join("---\n");
}
