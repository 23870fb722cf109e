/**
 * The desired Kubernetes objects of one Agent revision (drivers.md §4–5), as plain data:
 *
 * - Agent-scoped: the gateway ServiceAccount, Service and Deployment `gateway-<h12(agent)>`
 *   (1 replica, `Recreate`, restricted security context, labelled with the gateway role and
 *   the network profile `allow-gateway-ingress` and `allow-dns` select), the Credential Proxy
 *   egress policy when an egress authority is configured, and the claims (see
 *   `workload-claims.ts`);
 * - revision-scoped: the ConfigMap rendered from the revision's configuration snapshot, the
 *   credentials Secret, and for `dedicated` mode the harness Deployment.
 *
 * Every object carries its exact ownership markers and a spec-hash annotation: the driver
 * writes only when the observed hash differs, so a pass over an unchanged Agent writes nothing.
 */
import { dnsEgressRule, peerOf } from "../isolation/network-policies.js";
import { LABELS, MARKER_VALUES } from "../placement/markers.js";
import { h } from "../placement/naming.js";
import {
  WORKLOAD_KEYS,
  agentObjectNames,
  workloadMarkers,
  workloadNames,
  type WorkloadScope,
} from "./names.js";
import { gatewayPodSpec, harnessPodSpec, type PodInputs } from "./pods.js";
import type {
  DesiredWorkloadObject,
  WorkloadInput,
  WorkloadMeta,
  WorkloadObject,
} from "./inputs.js";

/**
 * The revision's objects in write order: ServiceAccount, ConfigMap, credentials Secret, egress
 * policy, Service, harness Deployment, and the gateway Deployment last, so the gateway only
 * switches to the revision once everything it mounts exists.
 */
export function desiredWorkloadObjects(input: WorkloadInput): readonly DesiredWorkloadObject[] {
  const names = workloadNames(input.agentId, input.revisionId);
  const agent: WorkloadScope = { scope: "agent" };
  const revision: WorkloadScope = { scope: "revision", revisionId: input.revisionId };
  const meta = (name: string, scope: WorkloadScope, extra: Record<string, string> = {}) => {
    const markers = workloadMarkers(input.tenantId, input.agentId, scope);
    return {
      name,
      namespace: input.namespace,
      labels: { ...markers.labels, ...extra },
      annotations: markers.annotations,
    };
  };
  const pods: PodInputs = { ...input, names };
  const out: { scope: WorkloadScope; object: WorkloadObject; createOnly?: boolean }[] = [
    {
      scope: agent,
      object: {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: meta(names.gateway, agent),
        automountServiceAccountToken: false,
      },
    },
    {
      scope: revision,
      object: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: meta(names.config, revision),
        data: { "openclaw.json": input.configurationDocument },
      },
    },
    {
      scope: revision,
      createOnly: true,
      object: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: meta(names.credentials, revision),
        type: "Opaque",
      },
    },
  ];
  if (input.egressAuthority !== null) {
    out.push({ scope: agent, object: agentEgressPolicy(input) });
  }
  out.push({
    scope: agent,
    object: {
      apiVersion: "v1",
      kind: "Service",
      metadata: meta(names.gateway, agent),
      spec: {
        type: "ClusterIP",
        selector: gatewaySelector(input.agentId),
        ports: [
          {
            name: "gateway",
            protocol: "TCP",
            port: input.gatewayPort,
            targetPort: input.gatewayPort,
          },
        ],
      },
    },
  });
  if (input.executionMode === "dedicated") {
    const selector = { ...harnessSelector(input.agentId), [LABELS.revision]: input.revisionId };
    out.push({
      scope: revision,
      object: deployment(
        meta(names.harness, revision),
        selector,
        { ...harnessPodSpec(pods), affinity: besideTheGateway(input.agentId) },
        {},
      ),
    });
  }
  out.push({
    scope: agent,
    object: deployment(
      meta(names.gateway, agent, {
        [LABELS.workloadRole]: MARKER_VALUES.workloadRoleGateway,
        [LABELS.networkProfile]: MARKER_VALUES.networkProfileBroadEgress,
      }),
      gatewaySelector(input.agentId),
      gatewayPodSpec(pods),
      { [WORKLOAD_KEYS.activeRevision]: input.revisionId },
    ),
  });
  return out.map((d) => ({
    scope: d.scope,
    createOnly: d.createOnly === true,
    object: withSpecHash(d.object),
  }));
}

/**
 * The harness shares the workspace claim with the gateway, and the claim is `ReadWriteOnce`
 * (the one access mode every storage class offers): both pods must run on one node, so the
 * harness is scheduled beside the Agent's gateway pod.
 */
export function besideTheGateway(agentId: string): Record<string, unknown> {
  return {
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        {
          labelSelector: { matchLabels: gatewaySelector(agentId) },
          topologyKey: "kubernetes.io/hostname",
        },
      ],
    },
  };
}

/** The gateway pods: the Agent, the gateway role and the profile the tenant policies select. */
export function gatewaySelector(agentId: string): Record<string, string> {
  return {
    [LABELS.agent]: agentId,
    [LABELS.workloadRole]: MARKER_VALUES.workloadRoleGateway,
    [LABELS.networkProfile]: MARKER_VALUES.networkProfileBroadEgress,
  };
}

function harnessSelector(agentId: string): Record<string, string> {
  return {
    [LABELS.agent]: agentId,
    [LABELS.workloadRole]: "harness",
    [LABELS.networkProfile]: MARKER_VALUES.networkProfileBroadEgress,
  };
}

function deployment(
  metadata: WorkloadMeta,
  selector: Record<string, string>,
  podSpec: Record<string, unknown>,
  annotations: Record<string, string>,
): WorkloadObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { ...metadata, annotations: { ...metadata.annotations, ...annotations } },
    spec: {
      replicas: 1,
      strategy: { type: "Recreate" },
      selector: { matchLabels: selector },
      template: { metadata: { labels: selector, annotations }, spec: podSpec },
    },
  };
}

/** What the Agent's Credential Proxy egress policy is rendered from. */
export type AgentEgressInput = Pick<
  WorkloadInput,
  "tenantId" | "namespace" | "agentId" | "egressAuthority" | "dns"
>;

/**
 * The Credential Proxy policy `agent-egress-<h12(agentId)>` (drivers.md §5), with the Agent's
 * ownership markers: the Agent's pods may reach DNS and the egress authority's pods on its
 * port, and nothing else. Also what the sealed preprovisioned namespace admits for each Agent.
 */
export function agentEgressPolicy(input: AgentEgressInput): WorkloadObject {
  const authority = input.egressAuthority;
  if (authority === null) throw new Error("egressPolicy without an egress authority");
  const markers = workloadMarkers(input.tenantId, input.agentId, { scope: "agent" });
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: {
      name: agentObjectNames(input.agentId).egressPolicy,
      namespace: input.namespace,
      labels: markers.labels,
      annotations: markers.annotations,
    },
    spec: {
      podSelector: { matchLabels: { [LABELS.agent]: input.agentId } },
      policyTypes: ["Egress"],
      egress: [
        dnsEgressRule(input.dns),
        { to: [peerOf(authority)], ports: [{ protocol: "TCP", port: authority.port }] },
      ],
    },
  };
}

/** Adds the spec-hash annotation: a hash of everything else in the object. */
function withSpecHash(object: WorkloadObject): WorkloadObject {
  const hash = h(JSON.stringify(object), 16);
  return {
    ...object,
    metadata: {
      ...object.metadata,
      annotations: { ...object.metadata.annotations, [WORKLOAD_KEYS.specHash]: hash },
    },
  };
}
