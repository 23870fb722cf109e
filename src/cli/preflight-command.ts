/**
 * `occ namespaces preflight <k8s-namespace>`: runs the worker's adoption checks read-only
 * against a candidate namespace and prints every failing requirement with its fix. Exit code
 * 0 only when adoption would pass — usable as a gate in an operator's pipeline.
 *
 * Beyond the namespace's own metadata and NetworkPolicies it reads the RoleBindings in it and
 * the ClusterRoleBindings (the worker's and the API's tenant roles, and the worker's OpenShell
 * role when OpenShell is configured), and, for a given `--namespace-id`, the namespaces that
 * already claim that tenant.
 */
import type { Command } from "commander";
import { loadInstallationConfig, type InstallationConfig } from "../config/installation-config.js";
import {
  preflightExternal,
  type ExternalCandidate,
  type PreflightContext,
} from "../domain/placement/external-preflight.js";
import type { Violation } from "../domain/placement/violations.js";
import { LABELS, type K8sNamespace, type RequiredGrant } from "../domain/index.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../drivers/kubernetes/client/index.js";
import {
  openshellTenantRoleBinding,
  tenantRoleBinding,
  type RbacSubject,
} from "../drivers/kubernetes/rbac-objects.js";
import { OPENSHELL_TENANT_ROLE, TENANT_CLUSTER_ROLES } from "../drivers/kubernetes/rbac-rules.js";
import { parseSubject } from "./subjects.js";
import { messageOf } from "../domain/input/unknowns.js";

/** Stands in for a tenant that does not exist yet: any existing tenant marker is foreign. */
const NEW_TENANT = "ns_preflight-candidate";

export interface PreflightFlags {
  namespaceId?: string;
  kubeconfig?: string;
  config?: string;
  worker?: string;
  api?: string;
}

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

/** Every failing requirement of `name`, one line each with its check, key and fix. */
export function failureReport(name: string, failures: readonly Violation[]): string {
  return (
    `${name}: ${failures.length} requirement(s) not met:\n` +
    failures
      .map((f) => `  ✗ [${f.check}${f.key === null ? "" : ` ${f.key}`}] ${f.message}\n`)
      .join("")
  );
}

/** The tenant RoleBindings adoption needs, for the given (or configured) identities. */
export function requiredGrants(
  name: string,
  config: InstallationConfig,
  flags: PreflightFlags,
): RequiredGrant[] {
  const configured = config.kubernetes.tenantRoleBindings;
  const worker: RbacSubject =
    flags.worker !== undefined
      ? parseSubject("--worker", flags.worker)
      : (configured?.worker ?? parseSubject("--worker", "openclaw-system:occ-worker"));
  const api: RbacSubject =
    flags.api !== undefined
      ? parseSubject("--api", flags.api)
      : (configured?.api ?? parseSubject("--api", "openclaw-system:occ-api"));
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

function openshellInUse(config: InstallationConfig): boolean {
  return config.drivers.sandbox === "openshell" && config.openshell !== null;
}

export function registerPreflightCommand(namespaces: Command): void {
  namespaces
    .command("preflight <k8s-namespace>")
    .description(
      "check an operator-owned namespace before selecting it as existingNamespace; lists every failing requirement",
    )
    .option("--namespace-id <id>", "the platform Namespace it is (or will be) bound to")
    .option("--kubeconfig <file>", "kubeconfig to read with (default: config, then $KUBECONFIG)")
    .option("--config <file>", "Installation configuration YAML (default: $OCC_CONFIG_PATH)")
    .option(
      "--worker <subject>",
      "the worker's identity: <namespace>:<serviceaccount> or user:<name> (default: kubernetes.tenantRoleBindings, else openclaw-system:occ-worker)",
    )
    .option(
      "--api <subject>",
      "the API's identity: <namespace>:<serviceaccount> or user:<name> (default: kubernetes.tenantRoleBindings, else openclaw-system:occ-api)",
    )
    .action(async (name: string, flags: PreflightFlags) => {
      const config = await loadInstallationConfig(flags.config ?? process.env.OCC_CONFIG_PATH);
      const grants = requiredGrants(name, config, flags);
      const client = createObjectClient(
        loadKubeConfig(flags.kubeconfig ?? config.kubernetes.kubeconfig),
      );
      try {
        const candidate = await readCandidate(client, name, flags.namespaceId);
        const failures = preflightExternal(
          candidate,
          preflightContext(config, grants, flags.namespaceId ?? NEW_TENANT),
        );
        if (failures.length === 0) {
          process.stdout.write(`ok: ${name} can be selected as existingNamespace\n`);
          return;
        }
        process.stdout.write(failureReport(name, failures));
        process.exitCode = 1;
      } finally {
        client.close();
      }
    });
}
