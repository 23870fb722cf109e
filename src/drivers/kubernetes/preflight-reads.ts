/**
 * The reads and the context of the external-adoption preflight (preprovisioned.md §7), shared
 * by `occ namespaces preflight` (the operator's kubeconfig) and the API's preflight route (its
 * own read-only identity): the candidate namespace, its NetworkPolicies, the RoleBindings in it
 * and the ClusterRoleBindings, the namespaces already claiming the tenant; the Installation's
 * routing, reserved namespace, required labels and the tenant RoleBindings adoption needs.
 */
import { stringify } from "yaml";
import type { InstallationConfig } from "../../config/installation-config.js";
import { LABELS, type K8sNamespace, type RequiredGrant } from "../../domain/index.js";
import { messageOf } from "../../domain/input/unknowns.js";
import type {
  ExternalCandidate,
  PreflightContext,
} from "../../domain/placement/external-preflight.js";
import type { ObjectClient } from "./client/index.js";
import { openshellTenantRoleBinding, tenantRoleBinding, type RbacSubject } from "./rbac-objects.js";
import { OPENSHELL_TENANT_ROLE, TENANT_CLUSTER_ROLES } from "./rbac-rules.js";

/** Stands in for a tenant that does not exist yet: any existing tenant marker is foreign. */
export const NEW_TENANT = "ns_preflight-candidate";

/** The chart's identities, when neither a flag nor `kubernetes.tenantRoleBindings` names one. */
const CHART_SUBJECTS = {
  worker: { kind: "ServiceAccount", namespace: "openclaw-system", name: "occ-worker" },
  api: { kind: "ServiceAccount", namespace: "openclaw-system", name: "occ-api" },
} as const satisfies Record<string, RbacSubject>;

/** The worker's and the API's identities: given, else configured, else the chart's. */
export interface GrantSubjects {
  readonly worker?: RbacSubject | undefined;
  readonly api?: RbacSubject | undefined;
}

/** Reads everything the preflight of `name` needs; a refused read names the read and the fix. */
export async function readCandidate(
  client: ObjectClient,
  name: string,
  tenantId: string | undefined,
): Promise<ExternalCandidate> {
  const read = async <T>(step: string, request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (err) {
      throw new Error(
        `cannot ${step}: ${messageOf(err)}; run preflight with an identity that may read it`,
        { cause: err },
      );
    }
  };
  const namespace =
    (await read(`read namespace ${name}`, () => client.find("Namespace", { name }))) ?? null;
  if (namespace === null) return { name, namespace, policies: [], bindings: [], claimants: [] };
  const [policies, roleBindings, clusterRoleBindings, claimants] = await Promise.all([
    read(`list the NetworkPolicies in ${name}`, () =>
      client.list("NetworkPolicy", { namespace: name }),
    ),
    read(`list the RoleBindings in ${name}`, () => client.list("RoleBinding", { namespace: name })),
    read("list the ClusterRoleBindings", () => client.list("ClusterRoleBinding")),
    tenantId === undefined
      ? Promise.resolve<K8sNamespace[]>([])
      : read(`list the namespaces labelled ${LABELS.namespace}=${tenantId}`, () =>
          client.list("Namespace", { labelSelector: `${LABELS.namespace}=${tenantId}` }),
        ),
  ]);
  return {
    name,
    namespace,
    policies,
    bindings: [...roleBindings, ...clusterRoleBindings],
    claimants,
  };
}

function openshellInUse(config: InstallationConfig): boolean {
  return config.drivers.sandbox === "openshell" && config.openshell !== null;
}

/** The checks' context: the Installation's routing, reserved namespace and required labels. */
export function preflightContext(
  config: InstallationConfig,
  grants: readonly RequiredGrant[],
  tenantId: string = NEW_TENANT,
): PreflightContext {
  return {
    tenantId,
    routing: config.compute.gatewayRouting,
    controllerNamespace: config.kubernetes.controllerNamespace,
    grants,
    labels: {
      required:
        openshellInUse(config) && config.openshell !== null
          ? config.openshell.operatorNamespaceLabels
          : {},
      setting: "openshell.gateway.operatorNamespaceLabels",
    },
  };
}

/** The worker's and the API's subjects for `config`, `given` first. */
export function grantSubjects(
  config: InstallationConfig,
  given: GrantSubjects = {},
): { readonly worker: RbacSubject; readonly api: RbacSubject } {
  const configured = config.kubernetes.tenantRoleBindings;
  return {
    worker: given.worker ?? configured?.worker ?? CHART_SUBJECTS.worker,
    api: given.api ?? configured?.api ?? CHART_SUBJECTS.api,
  };
}

/** The tenant RoleBindings adoption of `name` needs, for the given (or configured) identities. */
export function requiredGrantsFor(
  name: string,
  config: InstallationConfig,
  given: GrantSubjects = {},
): RequiredGrant[] {
  const { worker, api } = grantSubjects(config, given);
  const grant = (who: string, subject: RbacSubject, role: string, binding: string) => ({
    who,
    subject,
    clusterRole: role,
    bindingName: binding,
  });
  const bindingName = (o: { metadata?: { name?: string | undefined } | undefined }) =>
    o.metadata?.name ?? "";
  return [
    grant(
      "worker",
      worker,
      TENANT_CLUSTER_ROLES.worker,
      bindingName(tenantRoleBinding(name, "worker", worker)),
    ),
    grant("API", api, TENANT_CLUSTER_ROLES.api, bindingName(tenantRoleBinding(name, "api", api))),
    ...(openshellInUse(config)
      ? [
          grant(
            "worker (OpenShell)",
            worker,
            OPENSHELL_TENANT_ROLE,
            bindingName(openshellTenantRoleBinding(name, worker)),
          ),
        ]
      : []),
  ];
}

/** The RoleBindings an operator applies in `namespace`, as YAML documents. */
export function grantsManifest(
  namespace: string,
  worker: RbacSubject,
  api: RbacSubject,
  openshell = false,
): string {
  return [
    tenantRoleBinding(namespace, "worker", worker),
    tenantRoleBinding(namespace, "api", api),
    ...(openshell ? [openshellTenantRoleBinding(namespace, worker)] : []),
  ]
    .map((o) => stringify(o).trimEnd())
    .join("\n---\n");
}

/** {@link grantsManifest} for `namespace` with `config`'s identities and OpenShell. */
export function configuredGrantsManifest(namespace: string, config: InstallationConfig): string {
  const { worker, api } = grantSubjects(config);
  return grantsManifest(namespace, worker, api, openshellInUse(config));
}
