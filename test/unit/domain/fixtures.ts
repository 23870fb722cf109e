/** Builders of observed Kubernetes objects for the domain unit tests. */
import {
  ANNOTATIONS,
  LABELS,
  LIFECYCLE,
  currentManagedName,
  parseServerNamespaceId,
  validateComputeSettings,
  type ComputeSettings,
  type GatewayRouting,
  type K8sNamespace,
  type NamespaceId,
  type StringMap,
  type Violation,
} from "../../../src/domain/index.js";

function id(value: string): NamespaceId {
  const parsed = parseServerNamespaceId(value);
  if (!parsed.ok) throw new Error(`bad fixture ID ${value}`);
  return parsed.value;
}

/** The tenant under test. */
export const TENANT = id("ns_00000000-0000-4000-8000-000000000001");
/** Another tenant, whose ID must never leak. */
export const OTHER = id("ns_11111111-1111-4111-8111-111111111111");

export const ROUTING: GatewayRouting = {
  gatewayNamespace: "openclaw-system",
  gatewayName: "oce-agent-gateways",
  envoyNamespace: "envoy-gateway-system",
};
/** The Agent under test, another Agent of the same tenant, and two revisions of the first. */
export const AGENT = "agt_00000000-0000-4000-8000-0000000000a1";
export const OTHER_AGENT = "agt_00000000-0000-4000-8000-0000000000a2";
export const REV1 = "rev_00000000-0000-4000-8000-0000000000b1";
export const REV2 = "rev_00000000-0000-4000-8000-0000000000b2";

/** `h("openclaw-system/oce-agent-gateways", 12)` from placement.md §1. */
export const MEMBERSHIP = "20ec97c41b82";

/** The managed markers' labels for TENANT, spelled out as placement.md §1–2 writes them. */
export const MANAGED_LABELS_AS_WRITTEN: StringMap = {
  "app.kubernetes.io/managed-by": "openclaw-enterprise",
  "openclaw.dev/namespace": TENANT,
  "openclaw.dev/gateway-namespace": TENANT,
  "openclaw-enterprise.io/gateway": MEMBERSHIP,
  "pod-security.kubernetes.io/enforce": "restricted",
  "pod-security.kubernetes.io/audit": "restricted",
  "pod-security.kubernetes.io/warn": "restricted",
};

/** The cluster DNS pods as a NetworkPolicy peer (the `dns` setting of the fixtures). */
export const KUBE_DNS_PEER = {
  namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
  podSelector: { matchLabels: { "k8s-app": "kube-dns" } },
};

/** A refusal's violations as `check:key` strings. */
export function violationKeys(violations: readonly Violation[]): string[] {
  return violations.map((v) => `${v.check}:${v.key ?? ""}`);
}

export const RESTRICTED: StringMap = {
  [LABELS.podSecurityEnforce]: "restricted",
  [LABELS.podSecurityAudit]: "restricted",
  [LABELS.podSecurityWarn]: "restricted",
};

export interface NamespaceShape {
  readonly name?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly labels?: StringMap;
  readonly annotations?: StringMap;
  readonly phase?: string;
  readonly deletionTimestamp?: string;
}

/**
 * Each ownership marker set to another tenant's ID ({@link OTHER}): where it sits, its key, and
 * the metadata that carries it — the foreign-marker cases of every verdict.
 */
export const FOREIGN_MARKERS: readonly (readonly [string, string, NamespaceShape])[] = [
  ["label", LABELS.namespace, { labels: { [LABELS.namespace]: OTHER } }],
  ["annotation", ANNOTATIONS.namespaceId, { annotations: { [ANNOTATIONS.namespaceId]: OTHER } }],
  ["label", LABELS.gatewayNamespace, { labels: { [LABELS.gatewayNamespace]: OTHER } }],
];

/** A namespace as the API would return it (Active unless told otherwise). */
export function namespace(shape: NamespaceShape = {}): K8sNamespace {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name: shape.name ?? "customer-support-prod",
      uid: shape.uid ?? "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60",
      resourceVersion: shape.resourceVersion ?? "4711",
      labels: shape.labels ?? {},
      annotations: shape.annotations ?? {},
      ...(shape.deletionTimestamp === undefined
        ? {}
        : { deletionTimestamp: shape.deletionTimestamp }),
    },
    status: { phase: shape.phase ?? "Active" },
  };
}

/** An operator-prepared, not yet bound external namespace that passes every check. */
export function preparedExternal(extra: NamespaceShape = {}): K8sNamespace {
  return namespace({
    ...extra,
    labels: { [LABELS.managedBy]: "Helm", ...RESTRICTED, ...extra.labels },
    annotations: { [ANNOTATIONS.lifecycle]: LIFECYCLE.external, ...extra.annotations },
  });
}

/** The same namespace bound to `tenant` (with routing: membership label too). */
export function boundExternal(
  tenant: string,
  routing: boolean,
  extra: NamespaceShape = {},
): K8sNamespace {
  return preparedExternal({
    ...extra,
    labels: {
      [LABELS.namespace]: tenant,
      [LABELS.gatewayNamespace]: tenant,
      ...(routing ? { [LABELS.gatewayMembership]: MEMBERSHIP } : {}),
      ...extra.labels,
    },
    annotations: { [ANNOTATIONS.namespaceId]: tenant, ...extra.annotations },
  });
}

/** A managed namespace of `tenant`, complete with every managed marker. */
export function managed(tenant: string, extra: NamespaceShape = {}): K8sNamespace {
  return namespace({
    name: currentManagedName(tenant),
    ...extra,
    labels: {
      [LABELS.managedBy]: "openclaw-enterprise",
      [LABELS.namespace]: tenant,
      [LABELS.gatewayNamespace]: tenant,
      ...RESTRICTED,
      ...extra.labels,
    },
    annotations: { [ANNOTATIONS.namespaceId]: tenant, ...extra.annotations },
  });
}

/** A copy of `map` without `key`. */
export function without(map: StringMap | undefined, key: string): StringMap {
  const copy: Record<string, string> = { ...map };
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- building test input
  delete copy[key];
  return copy;
}

/** Replaces a namespace's labels/annotations wholesale. */
export function withMetadata(
  ns: K8sNamespace,
  labels: StringMap | undefined,
  annotations: StringMap | undefined,
): K8sNamespace {
  return { ...ns, metadata: { ...ns.metadata, labels, annotations } };
}

/** Raw Compute settings that pass validation. */
export const VALID_INPUT = {
  quota: { "requests.cpu": "8", "limits.memory": "16Gi", pods: "50" },
  containerLimits: { cpu: "1", memory: "1Gi" },
  containerRequests: { cpu: "500m", memory: "512Mi" },
  dns: { namespace: "kube-system", podLabels: { "k8s-app": "kube-dns" } },
  gatewayPort: 18789,
  gatewayRouting: {
    gatewayNamespace: "openclaw-system",
    gatewayName: "oce-agent-gateways",
    envoyNamespace: "envoy-gateway-system",
  },
  gatewayClients: [],
};

/** {@link VALID_INPUT}, validated. */
export function validSettings(overrides: Record<string, unknown> = {}): ComputeSettings {
  const result = validateComputeSettings({ ...VALID_INPUT, ...overrides });
  if (!result.ok) throw new Error(result.error.map((problem) => problem.message).join("; "));
  return result.value;
}
