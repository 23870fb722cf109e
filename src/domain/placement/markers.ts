/**
 * Marker keys and values (placement.md §2) and the marker sets built from them.
 *
 * Markers are how OCC recognises what it owns. Ownership is decided by exact values on a
 * fixed set of keys; extra keys on an object are ignored, so operators and other tools may add
 * their own metadata without disturbing OCC. Labels carry raw IDs; object names carry hashes.
 */
import type { GatewayRouting } from "../isolation/compute-settings.js";
import type { ObjectMeta, StringMap } from "./k8s-objects.js";
import { gatewayMembership } from "./naming.js";

/** Label keys OCC reads or writes. */
export const LABELS = {
  managedBy: "app.kubernetes.io/managed-by",
  namespace: "openclaw.dev/namespace",
  gatewayNamespace: "openclaw.dev/gateway-namespace",
  gatewayMembership: "openclaw-enterprise.io/gateway",
  podSecurityEnforce: "pod-security.kubernetes.io/enforce",
  podSecurityAudit: "pod-security.kubernetes.io/audit",
  podSecurityWarn: "pod-security.kubernetes.io/warn",
  agent: "openclaw.dev/agent",
  revision: "openclaw.dev/revision",
  networkProfile: "openclaw.dev/network-profile",
  workloadRole: "openclaw.dev/workload-role",
  metadataName: "kubernetes.io/metadata.name",
  envoyOwningGatewayNamespace: "gateway.envoyproxy.io/owning-gateway-namespace",
  envoyOwningGatewayName: "gateway.envoyproxy.io/owning-gateway-name",
} as const;

/** Annotation keys OCC reads or writes. */
export const ANNOTATIONS = {
  namespaceId: "openclaw.dev/namespace-id",
  lifecycle: "openclaw.dev/namespace-lifecycle",
  agentId: "openclaw.dev/agent-id",
  revisionId: "openclaw.dev/revision-id",
} as const;

/** Fixed marker values. */
export const MARKER_VALUES = {
  managedBy: "openclaw-enterprise",
  podSecurityLevel: "restricted",
  networkProfileBroadEgress: "broad-egress-v1",
  workloadRoleGateway: "gateway",
} as const;

/** Values of the `openclaw.dev/namespace-lifecycle` annotation; managed namespaces have none. */
export const LIFECYCLE = {
  external: "external",
  preprovisioned: "preprovisioned",
} as const;

/** One of the lifecycle annotation values. */
export type Lifecycle = (typeof LIFECYCLE)[keyof typeof LIFECYCLE];

/** The three Pod Security labels, each required to be `restricted`. */
export const POD_SECURITY_LABELS = [
  LABELS.podSecurityEnforce,
  LABELS.podSecurityAudit,
  LABELS.podSecurityWarn,
] as const;

/**
 * The namespace keys whose value, when present, must be this tenant's ID. Any other value is
 * a foreign marker: the namespace belongs to (or was claimed by) another tenant.
 */
export const TENANT_IDENTITY_KEYS = [
  { kind: "label", key: LABELS.namespace },
  { kind: "annotation", key: ANNOTATIONS.namespaceId },
  { kind: "label", key: LABELS.gatewayNamespace },
] as const;

/** Expected labels and annotations; a check compares exactly these keys. */
export interface Markers {
  readonly labels: StringMap;
  readonly annotations: StringMap;
}

/**
 * Markers on every object OCC owns inside a tenant namespace: manager label, tenant label and
 * tenant annotation.
 */
export function tenantOwnershipMarkers(tenantId: string): Markers {
  return {
    labels: { [LABELS.managedBy]: MARKER_VALUES.managedBy, [LABELS.namespace]: tenantId },
    annotations: { [ANNOTATIONS.namespaceId]: tenantId },
  };
}

/** Markers of an Agent-scoped object: the tenant markers plus the Agent label and annotation. */
export function agentOwnershipMarkers(tenantId: string, agentId: string): Markers {
  const tenant = tenantOwnershipMarkers(tenantId);
  return {
    labels: { ...tenant.labels, [LABELS.agent]: agentId },
    annotations: { ...tenant.annotations, [ANNOTATIONS.agentId]: agentId },
  };
}

/**
 * Markers of a revision-scoped object. A revision belongs to one Agent, so it carries the
 * Agent markers as well: an object is then owned by exactly one (tenant, agent, revision).
 */
export function revisionOwnershipMarkers(
  tenantId: string,
  agentId: string,
  revisionId: string,
): Markers {
  const agent = agentOwnershipMarkers(tenantId, agentId);
  return {
    labels: { ...agent.labels, [LABELS.revision]: revisionId },
    annotations: { ...agent.annotations, [ANNOTATIONS.revisionId]: revisionId },
  };
}

/**
 * True when every expected marker is present with the exact value. Extra keys are ignored;
 * a missing key or any different value (case included) is not a match.
 */
export function hasMarkers(metadata: ObjectMeta | undefined, expected: Markers): boolean {
  return (
    mapContains(metadata?.labels, expected.labels) &&
    mapContains(metadata?.annotations, expected.annotations)
  );
}

/** True when the object carries this tenant's ownership markers exactly (§2). */
export function isOwnedBy(metadata: ObjectMeta | undefined, tenantId: string): boolean {
  return hasMarkers(metadata, tenantOwnershipMarkers(tenantId));
}

/**
 * The binding keys of a namespace (§4.2 step 7): tenant label, tenant annotation,
 * gateway-namespace label, and the membership label when gateway routing is configured. These
 * are the only keys OCC ever writes on an external namespace.
 */
export function namespaceBindingMarkers(tenantId: string, routing: GatewayRouting | null): Markers {
  return {
    labels: {
      [LABELS.namespace]: tenantId,
      [LABELS.gatewayNamespace]: tenantId,
      ...(routing === null
        ? {}
        : {
            [LABELS.gatewayMembership]: gatewayMembership(
              routing.gatewayNamespace,
              routing.gatewayName,
            ),
          }),
    },
    annotations: { [ANNOTATIONS.namespaceId]: tenantId },
  };
}

/**
 * Every marker of a managed namespace (§2): the binding markers, the manager label and the
 * three restricted Pod Security labels. The lifecycle annotation is absent by definition.
 */
export function managedNamespaceMarkers(tenantId: string, routing: GatewayRouting | null): Markers {
  const binding = namespaceBindingMarkers(tenantId, routing);
  return {
    labels: {
      [LABELS.managedBy]: MARKER_VALUES.managedBy,
      ...binding.labels,
      [LABELS.podSecurityEnforce]: MARKER_VALUES.podSecurityLevel,
      [LABELS.podSecurityAudit]: MARKER_VALUES.podSecurityLevel,
      [LABELS.podSecurityWarn]: MARKER_VALUES.podSecurityLevel,
    },
    annotations: binding.annotations,
  };
}

/** Reads a label or annotation value, `undefined` when absent. */
export function metadataValue(
  metadata: ObjectMeta | undefined,
  kind: "label" | "annotation",
  key: string,
): string | undefined {
  const map = kind === "label" ? metadata?.labels : metadata?.annotations;
  return map === undefined ? undefined : ownValue(map, key);
}

function ownValue(map: StringMap, key: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

function mapContains(actual: StringMap | undefined, expected: StringMap): boolean {
  return Object.entries(expected).every(
    ([key, value]) => actual !== undefined && ownValue(actual, key) === value,
  );
}
