import { inject } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  LIFECYCLE,
  newNamespaceId,
  validateComputeSettings,
  type ComputeSettings,
  type K8sNamespace,
  type NamespaceId,
  type Placement,
  type StringMap,
} from "../../../src/domain/index.js";
import type { KubeConfig } from "@kubernetes/client-node";
import type { NamespacePassInput } from "../../../src/drivers/compute.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import { KubernetesComputeDriver } from "../../../src/drivers/kubernetes/compute/driver.js";
import { uniqueName } from "../../harness/kube.js";

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
export function workerDriver(kc?: KubeConfig): {
  driver: KubernetesComputeDriver;
  client: ObjectClient;
} {
  const client = createObjectClient(kc ?? loadKubeConfig(inject("env").kubeconfigs["occ-worker"]));
  return { driver: new KubernetesComputeDriver({ client, settings: settings() }), client };
}

export const newTenant = (): NamespaceId => newNamespaceId();

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
