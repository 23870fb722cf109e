import { describe, expect, it } from "vitest";
import { networkPolicySpecsEquivalent, type NetworkPolicySpec } from "../../../src/domain/index.js";
import { KUBE_DNS_PEER } from "./fixtures.js";

const DNS_RULE = {
  to: [KUBE_DNS_PEER],
  ports: [
    { protocol: "UDP", port: 53 },
    { protocol: "TCP", port: 53 },
  ],
};

const EQUIVALENT: readonly (readonly [string, NetworkPolicySpec, NetworkPolicySpec])[] = [
  [
    "port without protocol = protocol TCP",
    { podSelector: {}, policyTypes: ["Ingress"], ingress: [{ ports: [{ port: 80 }] }] },
    {
      podSelector: {},
      policyTypes: ["Ingress"],
      ingress: [{ ports: [{ port: 80, protocol: "TCP" }] }],
    },
  ],
  [
    "empty ingress list = absent, Ingress listed",
    { podSelector: {}, policyTypes: ["Ingress", "Egress"], ingress: [], egress: [] },
    { podSelector: {}, policyTypes: ["Ingress", "Egress"] },
  ],
  [
    "empty egress list = absent, Egress listed",
    { podSelector: {}, policyTypes: ["Egress"], egress: [] },
    { podSelector: {}, policyTypes: ["Egress"] },
  ],
  [
    "absent policyTypes defaults to Ingress",
    { podSelector: {} },
    { podSelector: {}, policyTypes: ["Ingress"] },
  ],
  [
    "absent policyTypes with egress rules defaults to Ingress+Egress",
    { podSelector: {}, egress: [DNS_RULE] },
    { podSelector: {}, policyTypes: ["Ingress", "Egress"], egress: [DNS_RULE] },
  ],
  [
    "policyTypes order does not matter",
    { podSelector: {}, policyTypes: ["Egress", "Ingress"] },
    { podSelector: {}, policyTypes: ["Ingress", "Egress"] },
  ],
  [
    "absent podSelector = {} = {matchLabels: {}}",
    { policyTypes: ["Ingress"] },
    { podSelector: { matchLabels: {}, matchExpressions: [] }, policyTypes: ["Ingress"] },
  ],
  [
    "matchLabels key order does not matter",
    { podSelector: { matchLabels: { a: "1", b: "2" } } },
    { podSelector: { matchLabels: { b: "2", a: "1" } } },
  ],
  [
    "absent from/ports = empty",
    { podSelector: {}, ingress: [{ from: [], ports: [] }] },
    { podSelector: {}, ingress: [{}] },
  ],
  [
    "absent ipBlock.except = empty",
    { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8" } }] }] },
    { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8", except: [] } }] }] },
  ],
  ["undefined spec = {}", {}, { podSelector: {}, policyTypes: ["Ingress"] }],
  [
    "null members = absent",
    { podSelector: {}, policyTypes: ["Egress"], egress: null } as unknown as NetworkPolicySpec,
    { podSelector: {}, policyTypes: ["Egress"] },
  ],
  [
    "an unknown field compares equal when equal",
    { podSelector: {}, futureField: { a: 1 } } as NetworkPolicySpec,
    { podSelector: {}, futureField: { a: 1 } } as NetworkPolicySpec,
  ],
];

const DIFFERENT: readonly (readonly [string, NetworkPolicySpec, NetworkPolicySpec])[] = [
  [
    "egress: [] is not absent when policyTypes does not list Egress",
    { podSelector: {}, policyTypes: ["Ingress"], egress: [] },
    { podSelector: {}, policyTypes: ["Ingress"] },
  ],
  [
    "ingress: [] is not absent when policyTypes does not list Ingress",
    { podSelector: {}, policyTypes: ["Egress"], ingress: [] },
    { podSelector: {}, policyTypes: ["Egress"] },
  ],
  [
    "a defaulted policyTypes is not explicit: ingress: [] without policyTypes",
    { podSelector: {}, ingress: [] },
    { podSelector: {}, policyTypes: ["Ingress"] },
  ],
  [
    "[{}] is not [] even with the direction listed",
    { podSelector: {}, policyTypes: ["Ingress", "Egress"], egress: [{}] },
    { podSelector: {}, policyTypes: ["Ingress", "Egress"], egress: [] },
  ],
  [
    "an unknown spec field is compared, not dropped",
    { podSelector: {}, futureField: true } as NetworkPolicySpec,
    { podSelector: {} },
  ],
  [
    "an unknown field inside a rule is compared",
    {
      podSelector: {},
      ingress: [{ ports: [{ port: 80 }], futureRuleField: "x" }],
    } as unknown as NetworkPolicySpec,
    { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] },
  ],
  [
    "an unknown field inside a peer is compared",
    {
      podSelector: {},
      egress: [{ to: [{ podSelector: {}, futurePeerField: 1 }] }],
    } as unknown as NetworkPolicySpec,
    { podSelector: {}, egress: [{ to: [{ podSelector: {} }] }] },
  ],
  [
    "absent peer podSelector is not {}",
    { podSelector: {}, ingress: [{ from: [{ namespaceSelector: {} }] }] },
    { podSelector: {}, ingress: [{ from: [{ namespaceSelector: {}, podSelector: {} }] }] },
  ],
  [
    "[{}] (allow all) is not []",
    { podSelector: {}, policyTypes: ["Ingress"], ingress: [{}] },
    { podSelector: {}, policyTypes: ["Ingress"], ingress: [] },
  ],
  [
    "[{}] is not absent",
    { podSelector: {}, policyTypes: ["Egress"], egress: [{}] },
    { podSelector: {}, policyTypes: ["Egress"] },
  ],
  [
    "different policyTypes",
    { podSelector: {}, policyTypes: ["Ingress"] },
    { podSelector: {}, policyTypes: ["Ingress", "Egress"] },
  ],
  [
    "UDP is not TCP",
    { podSelector: {}, ingress: [{ ports: [{ port: 53, protocol: "UDP" }] }] },
    { podSelector: {}, ingress: [{ ports: [{ port: 53 }] }] },
  ],
  [
    "numeric port is not a named port",
    { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] },
    { podSelector: {}, ingress: [{ ports: [{ port: "80" }] }] },
  ],
  [
    "endPort matters",
    { podSelector: {}, ingress: [{ ports: [{ port: 80, endPort: 90 }] }] },
    { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] },
  ],
  [
    "absent namespaceSelector (this namespace) is not {} (all namespaces)",
    { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] },
    { podSelector: {}, ingress: [{ from: [{ podSelector: {}, namespaceSelector: {} }] }] },
  ],
  ["different pod selector", { podSelector: { matchLabels: { a: "1" } } }, { podSelector: {} }],
  [
    "different match expression values",
    { podSelector: { matchExpressions: [{ key: "a", operator: "In", values: ["x"] }] } },
    { podSelector: { matchExpressions: [{ key: "a", operator: "In", values: ["y"] }] } },
  ],
  [
    "extra peer",
    { podSelector: {}, egress: [DNS_RULE] },
    {
      podSelector: {},
      egress: [{ ...DNS_RULE, to: [...DNS_RULE.to, { ipBlock: { cidr: "0.0.0.0/0" } }] }],
    },
  ],
  [
    "rule order is compared exactly",
    { podSelector: {}, ingress: [{ ports: [{ port: 1 }] }, { ports: [{ port: 2 }] }] },
    { podSelector: {}, ingress: [{ ports: [{ port: 2 }] }, { ports: [{ port: 1 }] }] },
  ],
  [
    "ipBlock except differs",
    {
      podSelector: {},
      ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }] }],
    },
    { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8" } }] }] },
  ],
];

describe("networkPolicySpecsEquivalent", () => {
  it.each(EQUIVALENT)("equal: %s", (_case, a, b) => {
    expect(networkPolicySpecsEquivalent(a, b)).toBe(true);
    expect(networkPolicySpecsEquivalent(b, a)).toBe(true);
  });

  it.each(DIFFERENT)("different: %s", (_case, a, b) => {
    expect(networkPolicySpecsEquivalent(a, b)).toBe(false);
    expect(networkPolicySpecsEquivalent(b, a)).toBe(false);
  });

  it("treats an undefined spec as {}", () => {
    expect(networkPolicySpecsEquivalent(undefined, {})).toBe(true);
  });
});
