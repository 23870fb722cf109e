/**
 * Semantic equality of NetworkPolicy specs (placement.md §5, preprovisioned.md §3).
 *
 * Shared by Compute (should a policy be rewritten?) and the sealed-namespace checks (was a
 * declared policy changed?). Both sides are first brought to the form the API server stores:
 *
 * - a port without `protocol` is `TCP` (server default);
 * - `policyTypes` absent or empty is `[Ingress]`, plus `Egress` when egress rules exist
 *   (server default); the listed types then compare as a set, since their order has no
 *   meaning and the server keeps whatever order it was given;
 * - an absent `ingress`/`egress`/`from`/`to`/`ports`/`except`/`values` list equals an empty
 *   one: the server drops empty lists, so the two cannot be told apart once stored;
 * - an absent `podSelector` equals `{}` (it is a required, non-pointer field), and an absent
 *   `matchLabels`/`matchExpressions` equals an empty one.
 *
 * Everything else compares exactly, in order: rules, peers, ports, expressions. In particular
 * `[{}]` (one rule that allows everything) is never equal to `[]`, and a peer's absent
 * `namespaceSelector` (this namespace) is never equal to `{}` (every namespace).
 */
import type {
  LabelSelector,
  NetworkPolicyPeer,
  NetworkPolicyPort,
  NetworkPolicySpec,
} from "./k8s-objects.js";

/** True when the two specs mean the same policy once server defaults are applied. */
export function networkPolicySpecsEquivalent(
  a: NetworkPolicySpec | undefined,
  b: NetworkPolicySpec | undefined,
): boolean {
  return (
    JSON.stringify(normalizeNetworkPolicySpec(a ?? {})) ===
    JSON.stringify(normalizeNetworkPolicySpec(b ?? {}))
  );
}

/**
 * The canonical form used for comparison: plain data with a fixed key order, server defaults
 * applied, absent lists made empty and label maps sorted. Exposed for diagnostics and tests.
 */
export function normalizeNetworkPolicySpec(spec: NetworkPolicySpec): unknown {
  const ingress = (spec.ingress ?? []).map((rule) => normalizeRule(rule.from, rule.ports));
  const egress = (spec.egress ?? []).map((rule) => normalizeRule(rule.to, rule.ports));
  const declaredTypes = spec.policyTypes ?? [];
  const policyTypes =
    declaredTypes.length > 0
      ? [...declaredTypes].sort()
      : egress.length > 0
        ? ["Egress", "Ingress"]
        : ["Ingress"];
  return {
    podSelector: normalizeSelector(spec.podSelector ?? {}),
    policyTypes,
    ingress,
    egress,
  };
}

function normalizeRule(
  peers: readonly NetworkPolicyPeer[] | undefined,
  ports: readonly NetworkPolicyPort[] | undefined,
): unknown {
  return {
    peers: (peers ?? []).map(normalizePeer),
    ports: (ports ?? []).map(normalizePort),
  };
}

function normalizePeer(peer: NetworkPolicyPeer): unknown {
  return {
    podSelector: peer.podSelector === undefined ? null : normalizeSelector(peer.podSelector),
    namespaceSelector:
      peer.namespaceSelector === undefined ? null : normalizeSelector(peer.namespaceSelector),
    ipBlock:
      peer.ipBlock === undefined
        ? null
        : { cidr: peer.ipBlock.cidr, except: [...(peer.ipBlock.except ?? [])] },
  };
}

function normalizePort(port: NetworkPolicyPort): unknown {
  return {
    protocol: port.protocol ?? "TCP",
    port: port.port ?? null,
    endPort: port.endPort ?? null,
  };
}

function normalizeSelector(selector: LabelSelector): unknown {
  return {
    matchLabels: Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    ),
    matchExpressions: (selector.matchExpressions ?? []).map((expression) => ({
      key: expression.key,
      operator: expression.operator,
      values: [...(expression.values ?? [])],
    })),
  };
}
