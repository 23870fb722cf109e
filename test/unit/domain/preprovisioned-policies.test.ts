import { describe, expect, it } from "vitest";
import {
  PREPROVISIONED_MESSAGES,
  agentEgressPolicy,
  agentOwnershipMarkers,
  sealedPolicyFailures,
  sealedPolicyRefusal,
  sealedPolicySet,
  tenantOwnershipMarkers,
  type NetworkPolicy,
  type NetworkPolicySpec,
  type ObjectMeta,
} from "../../../src/domain/index.js";
import { TENANT, validSettings } from "./fixtures.js";

const NS = "oce-0123456789abcde";
const AUTHORITY = {
  namespace: "openclaw-system",
  podLabels: { app: "credential-proxy" },
  port: 3128,
  service: "egress-authority",
};
const settings = validSettings();
const AGENT_A = "agt_aaaaaaaa";
const AGENT_B = "agt_bbbbbbbb";
const DECLARED_SPEC: NetworkPolicySpec = {
  podSelector: {},
  policyTypes: ["Egress"],
  egress: [{ ports: [{ port: 8080 }] }],
};

const set = sealedPolicySet({
  tenantId: TENANT,
  namespace: NS,
  settings,
  egressAuthority: AUTHORITY,
  agentIds: [AGENT_A, AGENT_B],
  declared: [
    { name: "op-egress", spec: DECLARED_SPEC, key: "openshell.gateway.networkPolicyResources[0]" },
    {
      name: "op-workspace",
      spec: { podSelector: {}, policyTypes: ["Ingress"] },
      key: "openshell.gateway.operatorWorkspaceResources[3]",
    },
  ],
});

/** What the API server returns for a policy: markers, the spec, nothing else. */
function live(name: string, spec: NetworkPolicySpec | undefined, meta: ObjectMeta = {}) {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name, ...meta },
    spec,
  } as NetworkPolicy;
}

const agentPolicy = (agentId: string) =>
  agentEgressPolicy({
    tenantId: TENANT,
    namespace: NS,
    agentId,
    egressAuthority: AUTHORITY,
    dns: settings.dns,
  }) as unknown as NetworkPolicy;

const computeLive = set.compute.map((p) => live(p.metadata.name ?? "", p.spec, p.metadata));
const agentLive = (agentId: string, spec?: NetworkPolicySpec, meta?: ObjectMeta) => {
  const p = agentPolicy(agentId);
  return live(p.metadata.name ?? "", spec ?? p.spec, meta ?? p.metadata);
};
const tenant = tenantOwnershipMarkers(TENANT);

describe("the sealed policy set", () => {
  it("holds Compute's namespace policies and one egress policy per existing Agent", () => {
    expect(set.compute.map((p) => p.metadata.name)).toContain("default-deny");
    expect(set.agents.map((a) => a.policy.metadata.name)).toEqual([
      agentPolicy(AGENT_A).metadata.name,
      agentPolicy(AGENT_B).metadata.name,
    ]);
    expect(set.agents[0]?.policy.metadata.name).toMatch(/^agent-egress-[0-9a-f]{12}$/);
  });

  it("renders no Agent policy without a Credential Proxy", () => {
    const none = sealedPolicySet({
      tenantId: TENANT,
      namespace: NS,
      settings,
      egressAuthority: null,
      agentIds: [AGENT_A],
      declared: [],
    });
    expect(none.agents).toEqual([]);
  });
});

describe("sealedPolicyFailures", () => {
  const cases: readonly (readonly [string, NetworkPolicy[], readonly string[]])[] = [
    [
      "Compute, both Agents and both declared policies, as the server returns them",
      [
        ...computeLive,
        agentLive(AGENT_A),
        agentLive(AGENT_B),
        live("op-egress", {
          ...DECLARED_SPEC,
          egress: [{ ports: [{ port: 8080, protocol: "TCP" }] }],
        }),
        live("op-workspace", { podSelector: {}, policyTypes: ["Ingress"] }),
      ],
      [],
    ],
    [
      "a hand-added policy",
      [...computeLive, live("allow-all", { podSelector: {}, ingress: [{}] })],
      ["NetworkPolicy allow-all is a Compute or declared operator policy"],
    ],
    [
      "the egress policy of an Agent that does not exist",
      [agentLive("agt_gone0000", undefined, agentOwnershipMarkers(TENANT, "agt_gone0000"))],
      [
        `NetworkPolicy ${agentPolicy("agt_gone0000").metadata.name} is the egress policy of an Agent of this Namespace`,
      ],
    ],
    [
      "an Agent policy with a widened spec",
      [agentLive(AGENT_A, { ...agentPolicy(AGENT_A).spec, egress: [{}] })],
      [
        `NetworkPolicy ${agentPolicy(AGENT_A).metadata.name} has the spec Compute renders for Agent ${AGENT_A}`,
      ],
    ],
    [
      "an Agent policy with only the tenant markers (not the Agent's)",
      [agentLive(AGENT_A, undefined, tenant)],
      [
        `NetworkPolicy ${agentPolicy(AGENT_A).metadata.name} carries the ownership markers of Agent ${AGENT_A}`,
      ],
    ],
    [
      "Agent A's policy carrying Agent B's markers",
      [agentLive(AGENT_A, undefined, agentOwnershipMarkers(TENANT, AGENT_B))],
      [
        `NetworkPolicy ${agentPolicy(AGENT_A).metadata.name} carries the ownership markers of Agent ${AGENT_A}`,
      ],
    ],
    [
      "a Compute policy without markers",
      [live("default-deny", set.compute[0]?.spec)],
      ["NetworkPolicy default-deny carries the tenant ownership markers"],
    ],
    [
      "a changed Compute policy",
      [live("default-deny", { podSelector: {}, policyTypes: ["Ingress"] }, tenant)],
      ["NetworkPolicy default-deny has the spec Compute renders"],
    ],
    [
      "a declared policy changed to [{}]",
      [live("op-egress", { podSelector: {}, policyTypes: ["Egress"], egress: [{}] })],
      [
        "NetworkPolicy op-egress has the spec declared in openshell.gateway.networkPolicyResources[0]",
      ],
    ],
    [
      "an operatorWorkspaceResources policy with a changed spec",
      [live("op-workspace", { podSelector: {}, policyTypes: ["Egress"] })],
      [
        "NetworkPolicy op-workspace has the spec declared in openshell.gateway.operatorWorkspaceResources[3]",
      ],
    ],
  ];

  it.each(cases)("%s", (_, observed, expected) => {
    expect(sealedPolicyFailures(observed, set).map((f) => f.requirement)).toEqual(expected);
  });

  it("the refusal is the seed's sentence followed by each policy's fix", () => {
    const failures = sealedPolicyFailures(
      [live("allow-all", { podSelector: {} }), live("default-deny", { podSelector: {} }, tenant)],
      set,
    );
    const refusal = sealedPolicyRefusal(failures);
    expect(refusal).toMatchObject({ code: "KUBERNETES_OWNERSHIP_CONFLICT", retryable: false });
    expect(refusal.reason).toBe(
      `${PREPROVISIONED_MESSAGES.sealedPolicies} delete NetworkPolicy allow-all, or declare it in openshell.gateway.networkPolicyResources; delete NetworkPolicy default-deny; Compute recreates it`,
    );
  });
});
