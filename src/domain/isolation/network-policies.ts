/**
 * The NetworkPolicies OCC renders in every tenant namespace (placement.md §5).
 *
 * `default-deny` closes the namespace in both directions; the two allow policies then open
 * exactly DNS egress for workloads with the broad-egress profile and ingress to Agent gateway
 * pods from the gateway (or its configured clients). Policies are additive in Kubernetes, so
 * these three are the whole isolation story — which is why adoption refuses foreign policies.
 */
import type { ComputeSettings, PeerSetting } from "./compute-settings.js";
import type {
  NetworkPolicy,
  NetworkPolicyEgressRule,
  NetworkPolicyPeer,
  ObjectMeta,
} from "../placement/k8s-objects.js";
import { LABELS, MARKER_VALUES } from "../placement/markers.js";

/** Names of the policies OCC owns. */
export const NETWORK_POLICY_NAMES = {
  defaultDeny: "default-deny",
  allowDns: "allow-dns",
  allowGatewayIngress: "allow-gateway-ingress",
} as const;

/** Cluster DNS pods listen on 53, or on 5353 behind a Service (as on OpenShift). */
const DNS_PORTS = [53, 5353] as const;

/** Deny all ingress and egress for every pod: no rules, both policy types. */
export function renderDefaultDeny(metadata: ObjectMeta): NetworkPolicy {
  return policy(metadata, NETWORK_POLICY_NAMES.defaultDeny, {
    podSelector: {},
    policyTypes: ["Ingress", "Egress"],
  });
}

/** Egress to the configured DNS pods on UDP/TCP 53 and 5353, for broad-egress workloads. */
export function renderAllowDns(metadata: ObjectMeta, settings: ComputeSettings): NetworkPolicy {
  return policy(metadata, NETWORK_POLICY_NAMES.allowDns, {
    podSelector: {
      matchLabels: { [LABELS.networkProfile]: MARKER_VALUES.networkProfileBroadEgress },
    },
    policyTypes: ["Egress"],
    egress: [dnsEgressRule(settings.dns)],
  });
}

/** Egress to the DNS pods `dns` names on UDP/TCP 53 and 5353 (tenant and Agent policies alike). */
export function dnsEgressRule(dns: PeerSetting): NetworkPolicyEgressRule {
  return {
    to: [peerOf(dns)],
    ports: DNS_PORTS.flatMap((port) => [
      { protocol: "UDP", port },
      { protocol: "TCP", port },
    ]),
  };
}

/**
 * Ingress on TCP `gatewayPort` to Agent gateway pods: from the Envoy pods of the configured
 * Gateway when gateway routing is set, else from each `gatewayClients` peer. With neither,
 * the policy has no ingress rule at all (it admits nothing): a rule with an empty `from`
 * would admit every source, so an empty peer list must never become one.
 */
export function renderAllowGatewayIngress(
  metadata: ObjectMeta,
  settings: ComputeSettings,
): NetworkPolicy {
  const peers: NetworkPolicyPeer[] =
    settings.gatewayRouting === null
      ? settings.gatewayClients.map(peerOf)
      : [
          {
            namespaceSelector: {
              matchLabels: { [LABELS.metadataName]: settings.gatewayRouting.envoyNamespace },
            },
            podSelector: {
              matchLabels: {
                [LABELS.envoyOwningGatewayNamespace]: settings.gatewayRouting.gatewayNamespace,
                [LABELS.envoyOwningGatewayName]: settings.gatewayRouting.gatewayName,
              },
            },
          },
        ];
  return policy(metadata, NETWORK_POLICY_NAMES.allowGatewayIngress, {
    podSelector: {
      matchLabels: {
        [LABELS.workloadRole]: MARKER_VALUES.workloadRoleGateway,
        [LABELS.networkProfile]: MARKER_VALUES.networkProfileBroadEgress,
      },
    },
    policyTypes: ["Ingress"],
    ...(peers.length === 0
      ? {}
      : { ingress: [{ from: peers, ports: [{ protocol: "TCP", port: settings.gatewayPort }] }] }),
  });
}

/** The pods labelled `podLabels` (any, when empty) in the namespace `namespace`. */
export function peerOf(setting: PeerSetting): NetworkPolicyPeer {
  return {
    namespaceSelector: { matchLabels: { [LABELS.metadataName]: setting.namespace } },
    podSelector:
      Object.keys(setting.podLabels).length === 0 ? {} : { matchLabels: setting.podLabels },
  };
}

function policy(
  metadata: ObjectMeta,
  name: string,
  spec: NonNullable<NetworkPolicy["spec"]>,
): NetworkPolicy {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { ...metadata, name },
    spec,
  };
}
