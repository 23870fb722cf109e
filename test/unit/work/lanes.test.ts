import { describe, expect, it } from "vitest";
import {
  isPreprovisionedNamespaceId,
  newNamespaceId,
  type NamespaceId,
} from "../../../src/domain/placement/ids.js";
import { isAgentId, newAgentId, type AgentId } from "../../../src/domain/workloads/ids.js";
import {
  agentIdOfSubject,
  agentWorkSubject,
  formatLane,
  namespaceIdOfSubject,
  namespaceWorkSubject,
  parseLane,
  type Lane,
} from "../../../src/work/lanes.js";

function namespaceId(value: string): NamespaceId {
  if (!isPreprovisionedNamespaceId(value)) throw new Error(`not a Namespace ID: ${value}`);
  return value;
}
function agentId(value: string): AgentId {
  if (!isAgentId(value)) throw new Error(`not an Agent ID: ${value}`);
  return value;
}
const SERVER_NS = namespaceId("ns_0f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6");
const PREPROVISIONED_NS = namespaceId("ns_team-a_prod");
const AGENT = agentId("agt_0f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6");

describe("parseLane: every subject a work item can carry", () => {
  it.each<[string, string, Lane | null]>([
    ["a server Namespace ID", `namespace:${SERVER_NS}`, { of: "namespace", id: SERVER_NS }],
    [
      "a preprovisioned Namespace ID (the wider pattern)",
      `namespace:${PREPROVISIONED_NS}`,
      { of: "namespace", id: PREPROVISIONED_NS },
    ],
    ["an Agent ID", `agent:${AGENT}`, { of: "agent", id: AGENT }],
    ["an empty subject", "", null],
    ["no prefix", SERVER_NS, null],
    ["an empty ID", "namespace:", null],
    ["an unknown prefix", `tenant:${SERVER_NS}`, null],
    ["a prefix in another case", `Namespace:${SERVER_NS}`, null],
    ["an Agent ID in a Namespace lane", `namespace:${AGENT}`, null],
    ["a Namespace ID in an Agent lane", `agent:${SERVER_NS}`, null],
    ["a key, not a lane", `namespace:${SERVER_NS}:ready`, null],
    ["an Agent key, not a lane", `agent:${AGENT}:deleted`, null],
    ["an Agent ID in upper case", `agent:${AGENT.toUpperCase()}`, null],
    ["a Namespace ID over 60 characters", `namespace:ns_${"a".repeat(61)}`, null],
    ["a Namespace ID with a slash", "namespace:ns_a/b", null],
    ["trailing whitespace", `namespace:${SERVER_NS} `, null],
  ])("%s", (_what, subject, expected) => {
    expect(parseLane(subject)).toEqual(expected);
    expect(namespaceIdOfSubject(subject)).toBe(expected?.of === "namespace" ? expected.id : null);
    expect(agentIdOfSubject(subject)).toBe(expected?.of === "agent" ? expected.id : null);
  });
});

describe("formatLane and parseLane are inverses", () => {
  it.each<[string, Lane]>([
    ["a generated Namespace ID", { of: "namespace", id: newNamespaceId() }],
    ["a generated Agent ID", { of: "agent", id: newAgentId() }],
  ])("%s round-trips", (_what, lane) => {
    expect(parseLane(formatLane(lane))).toEqual(lane);
  });

  it("formats the subjects the database holds", () => {
    const ns = newNamespaceId();
    const agent = newAgentId();
    expect(namespaceWorkSubject(ns)).toBe(`namespace:${ns}`);
    expect(agentWorkSubject(agent)).toBe(`agent:${agent}`);
    expect(namespaceIdOfSubject(namespaceWorkSubject(ns))).toBe(ns);
    expect(agentIdOfSubject(agentWorkSubject(agent))).toBe(agent);
  });
});
