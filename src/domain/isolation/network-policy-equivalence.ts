/**
 * Semantic equality of NetworkPolicy specs (placement.md §5, preprovisioned.md §3, seed 001).
 *
 * Shared by Compute (should a policy be rewritten?), the sealed-namespace check and the
 * OpenShell Driver (was a declared policy changed?). Each side is brought to the form the API
 * server stores, and then every field of the spec compares exactly — fields this module does
 * not know included (they are kept, never dropped):
 *
 * - `policyTypes` absent or empty is `[Ingress]`, plus `Egress` when the egress list is not
 *   empty (the server's default); the listed types compare as a set (the server keeps the
 *   order it was given, and order has no meaning);
 * - an empty `ingress`/`egress` list equals an absent one ONLY for a direction the spec's own
 *   `policyTypes` explicitly lists (seed 001: "Kubernetes omitting an empty ingress or egress
 *   list when policyTypes explicitly includes that direction"). For any other direction an
 *   empty list and an absent one differ, and a defaulted `policyTypes` is not explicit;
 * - `[{}]` (one rule that allows everything) is never equal to `[]` or to an absent list;
 * - inside a rule, an absent `from`/`to`/`ports` list equals an empty one, as do an absent
 *   `ipBlock.except`, `matchLabels`, `matchExpressions` or expression `values` (the server
 *   stores them identically; both mean the same), and `null` equals absent;
 * - a port without `protocol` is `TCP`; the top-level `podSelector` absent is `{}` (it is a
 *   required field the server always returns). A peer's absent `namespaceSelector` (this
 *   namespace) is never `{}` (every namespace), nor is an absent peer `podSelector`.
 *
 * Rules, peers, ports and expressions compare in order; map keys in any order.
 */
import type { NetworkPolicySpec } from "../placement/k8s-objects.js";

type Json = Readonly<Record<string, unknown>>;

/** True when the two specs mean the same policy under the rules above. */
export function networkPolicySpecsEquivalent(
  a: NetworkPolicySpec | undefined,
  b: NetworkPolicySpec | undefined,
): boolean {
  return (
    canonicalJson(normalizeNetworkPolicySpec(a ?? {})) ===
    canonicalJson(normalizeNetworkPolicySpec(b ?? {}))
  );
}

const DIRECTIONS = [
  { list: "ingress", type: "Ingress", peers: "from" },
  { list: "egress", type: "Egress", peers: "to" },
] as const;

/**
 * The canonical form used for comparison: every field kept, server defaults applied, the
 * empty lists the rules above equate removed. Exposed for diagnostics and tests.
 */
export function normalizeNetworkPolicySpec(spec: NetworkPolicySpec): Json {
  const raw = withoutNulls(spec) as Json;
  const written: readonly unknown[] = Array.isArray(raw.policyTypes) ? raw.policyTypes : [];
  const egress = Array.isArray(raw.egress) ? raw.egress : [];
  const policyTypes =
    written.length > 0
      ? [...written].map(String).sort()
      : egress.length > 0
        ? ["Egress", "Ingress"]
        : ["Ingress"];
  const out: Record<string, unknown> = {
    ...raw,
    podSelector: normalizeSelector(raw.podSelector ?? {}),
    policyTypes,
  };
  for (const direction of DIRECTIONS) {
    const rules = raw[direction.list];
    if (rules === undefined) continue;
    if (!Array.isArray(rules)) continue; // not a list: kept as written, compared exactly
    out[direction.list] =
      rules.length === 0 && written.includes(direction.type)
        ? undefined // equal to absent: JSON omits it
        : rules.map((rule) => normalizeRule(rule, direction.peers));
  }
  return out;
}

function normalizeRule(rule: unknown, peersKey: "from" | "to"): unknown {
  if (!isObject(rule)) return rule;
  return {
    ...rule,
    [peersKey]: mapList(rule[peersKey], normalizePeer),
    ports: mapList(rule.ports, normalizePort),
  };
}

function normalizePeer(peer: unknown): unknown {
  if (!isObject(peer)) return peer;
  const out: Record<string, unknown> = { ...peer };
  if (peer.podSelector !== undefined) out.podSelector = normalizeSelector(peer.podSelector);
  if (peer.namespaceSelector !== undefined) {
    out.namespaceSelector = normalizeSelector(peer.namespaceSelector);
  }
  if (isObject(peer.ipBlock)) {
    out.ipBlock = { ...peer.ipBlock, except: mapList(peer.ipBlock.except, (e) => e) };
  }
  return out;
}

function normalizePort(port: unknown): unknown {
  if (!isObject(port)) return port;
  return { ...port, protocol: port.protocol ?? "TCP" };
}

function normalizeSelector(selector: unknown): unknown {
  if (!isObject(selector)) return selector;
  return {
    ...selector,
    matchLabels: selector.matchLabels ?? {},
    matchExpressions: mapList(selector.matchExpressions, (expression) =>
      isObject(expression)
        ? { ...expression, values: mapList(expression.values, (v) => v) }
        : expression,
    ),
  };
}

/** An absent list as empty, a list mapped; anything else kept for exact comparison. */
function mapList(value: unknown, fn: (item: unknown) => unknown): unknown {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(fn) : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy without `null` members (Kubernetes treats an explicit null as absent). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/** JSON with object keys sorted, so key order never matters. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isObject(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
