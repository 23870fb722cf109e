import { beforeAll, inject } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  LIFECYCLE,
  currentManagedName,
  newNamespaceId,
  validateComputeSettings,
  type ComputeSettings,
  type EnsureNamespaceResult,
  type K8sNamespace,
  type NamespaceId,
  type Placement,
  type StringMap,
} from "../../../src/domain/index.js";
import type { NamespacePassInput } from "../../../src/drivers/compute.js";
import {
  createObjectClient,
  loadKubeConfig,
  type KubeAccess,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import { KubernetesComputeDriver } from "../../../src/drivers/kubernetes/compute/driver.js";
import { uniqueName } from "../../harness/kube.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";

export const ROUTING = {
  gatewayNamespace: "openclaw-system",
  gatewayName: "oce-agent-gateways",
  envoyNamespace: "envoy-gateway-system",
} as const;
export const MEMBERSHIP = "20ec97c41b82";

export function settings(): ComputeSettings {
  const result = validateComputeSettings({
    quota: { "requests.cpu": "8", "limits.memory": "16Gi", pods: "50" },
    containerLimits: { cpu: "1", memory: "1Gi" },
    containerRequests: { cpu: "500m", memory: "512Mi" },
    dns: { namespace: "kube-system", podLabels: { "k8s-app": "kube-dns" } },
    gatewayPort: 18789,
    gatewayRouting: ROUTING,
    gatewayClients: [],
  });
  if (!result.ok) throw new Error(result.error.map((p) => p.message).join("; "));
  return result.value;
}

/** The cluster administrator, standing in for the operator who prepares namespaces. */
export const admin: ObjectClient = createObjectClient(
  loadKubeConfig(inject("env").kubeconfigs.admin),
);

/** A Compute Driver running as `occ-worker` with its own request counter. */
export function workerDriver(kc?: KubeAccess): {
  driver: KubernetesComputeDriver;
  client: ObjectClient;
} {
  const client = createObjectClient(kc ?? loadKubeConfig(inject("env").kubeconfigs["occ-worker"]));
  return { driver: new KubernetesComputeDriver({ client, settings: settings() }), client };
}

export const newTenant = (): NamespaceId => newNamespaceId();

/** A pass's failure with `code` that no later pass retries (for `toMatchObject`). */
export const permanentFailure = (code: string) => ({ outcome: "failed", code, retryable: false });

/** A pass's failure with `code` that a later pass retries (for `toMatchObject`). */
export const retryableFailure = (code: string) => ({ outcome: "failed", code, retryable: true });

export function managed(id: NamespaceId, boundUid: string | null = null): NamespacePassInput {
  return { namespaceId: id, placement: { mode: "managed" }, boundUid };
}

export function external(
  id: NamespaceId,
  existingNamespace: string,
  boundUid: string | null = null,
): NamespacePassInput {
  const placement: Placement = { mode: "external", existingNamespace };
  return { namespaceId: id, placement, boundUid };
}

export const RESTRICTED: StringMap = {
  [LABELS.podSecurityEnforce]: "restricted",
  [LABELS.podSecurityAudit]: "restricted",
  [LABELS.podSecurityWarn]: "restricted",
};

/**
 * What an operator prepares for adoption: lifecycle `external`, restricted Pod Security, their
 * own manager label (`Helm`) and unrelated metadata that must survive everything OCC does.
 */
export async function prepareExternal(
  opts: {
    labels?: StringMap;
    annotations?: StringMap;
    omitLabels?: string[];
    omitAnnotations?: string[];
  } = {},
): Promise<K8sNamespace> {
  const name = uniqueName("ext");
  const without = (map: StringMap, omit: readonly string[] = []): StringMap =>
    Object.fromEntries(Object.entries(map).filter(([k]) => !omit.includes(k)));
  const labels = without(
    { [LABELS.managedBy]: "Helm", team: "support", ...RESTRICTED, ...opts.labels },
    opts.omitLabels,
  );
  const annotations = without(
    {
      [ANNOTATIONS.lifecycle]: LIFECYCLE.external,
      "meta.helm.sh/release-name": "support",
      ...opts.annotations,
    },
    opts.omitAnnotations,
  );
  return admin.create("Namespace", { metadata: { name, labels, annotations } });
}

export async function readNamespace(name: string): Promise<K8sNamespace | undefined> {
  return admin.find("Namespace", { name });
}

/** Registers the file's one setup step: the chart's ClusterRoles the worker runs under. */
export function grantChartRolesBeforeAll(): void {
  beforeAll(async () => {
    await grantChartClusterRoles();
  });
}

/** An operator-prepared external namespace (see prepareExternal) with the worker's RoleBinding. */
export async function prepareBoundExternal(
  opts: Parameters<typeof prepareExternal>[0] = {},
): Promise<{ ns: K8sNamespace; name: string }> {
  const ns = await prepareExternal(opts);
  const name = ns.metadata?.name ?? "";
  await bindTenantRole(name, "occ-worker");
  return { ns, name };
}

/** One external pass for tenant `id` by a fresh worker driver. */
export function passExternal(id: NamespaceId, name: string): Promise<EnsureNamespaceResult> {
  return workerDriver().driver.ensureNamespace(external(id, name));
}

/** A fresh tenant's managed namespace, created, bound to the worker and ready. */
export async function readyManaged(): Promise<{
  id: NamespaceId;
  name: string;
  driver: KubernetesComputeDriver;
  client: ObjectClient;
  uid: string;
}> {
  const id = newTenant();
  const name = currentManagedName(id);
  const { driver, client } = workerDriver();
  await driver.ensureNamespace(managed(id));
  await bindTenantRole(name, "occ-worker");
  const placed = await driver.ensureNamespace(managed(id));
  if (placed.outcome !== "ready") throw new Error(`expected ready, got ${placed.outcome}`);
  return { id, name, driver, client, uid: placed.uid };
}

/** An operator's NetworkPolicy admitting all ingress (additive policies widen isolation). */
export async function createAllowAllPolicy(namespace: string): Promise<void> {
  await admin.create("NetworkPolicy", {
    metadata: { name: "allow-all", namespace },
    spec: { podSelector: {}, policyTypes: ["Ingress"], ingress: [{}] },
  });
}
