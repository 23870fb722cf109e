import { describe, expect, it } from "vitest";
import {
  LABELS,
  claimTeardownStep,
  claimDecision,
  desiredClaims,
  h,
  renderClaim,
  retirementPlan,
  teardownPlan,
  workloadMarkers,
  type ClaimSpec,
  type HasMetadata,
  type PersistentVolumeClaim,
} from "../../../src/domain/index.js";
import { workloadSettings } from "../../harness/workloads.js";
import { AGENT, OTHER, OTHER_AGENT, REV1, REV2, TENANT } from "./fixtures.js";

function obj(
  name: string,
  uid: string,
  markers: { labels: object; annotations: object },
): HasMetadata {
  return {
    metadata: { name, uid, labels: { ...markers.labels }, annotations: { ...markers.annotations } },
  };
}
const agentM = workloadMarkers(TENANT, AGENT, { scope: "agent" });
const rev1M = workloadMarkers(TENANT, AGENT, { scope: "revision", revisionId: REV1 });
const rev2M = workloadMarkers(TENANT, AGENT, { scope: "revision", revisionId: REV2 });
const foreignRevM = workloadMarkers(OTHER, AGENT, { scope: "revision", revisionId: REV1 });
const otherAgentRevM = workloadMarkers(TENANT, OTHER_AGENT, {
  scope: "revision",
  revisionId: REV1,
});
const mismatchedRevM = {
  labels: rev1M.labels,
  annotations: { ...rev1M.annotations, "openclaw.dev/revision-id": REV2 },
};

describe("retirementPlan", () => {
  it.each([
    {
      case: "the previous revision's own objects",
      objects: {
        Deployment: [obj("harness-1", "u1", rev1M)],
        ConfigMap: [obj("cfg-1", "u2", rev1M)],
        Secret: [obj("sec-1", "u3", rev1M)],
      },
      expected: ["cfg-1", "harness-1", "sec-1"],
    },
    {
      case: "never the current revision's",
      objects: { Deployment: [obj("harness-2", "u4", rev2M)] },
      expected: [],
    },
    {
      case: "never Agent-scoped objects (the gateway)",
      objects: { Deployment: [obj("gateway", "u5", agentM)] },
      expected: [],
    },
    {
      case: "never another tenant's",
      objects: { ConfigMap: [obj("cfg-x", "u6", foreignRevM)] },
      expected: [],
    },
    {
      case: "never another Agent's",
      objects: { ConfigMap: [obj("cfg-y", "u7", otherAgentRevM)] },
      expected: [],
    },
    {
      case: "never an object whose revision label and annotation disagree",
      objects: { Secret: [obj("sec-z", "u8", mismatchedRevM)] },
      expected: [],
    },
  ])("$case", ({ objects, expected }) => {
    expect(retirementPlan(objects, TENANT, AGENT, REV2).map((d) => d.name)).toEqual(expected);
  });

  it("carries each object's UID for the delete precondition", () => {
    expect(retirementPlan({ Secret: [obj("sec-1", "u3", rev1M)] }, TENANT, AGENT, REV2)).toEqual([
      { kind: "Secret", name: "sec-1", uid: "u3" },
    ]);
  });
});

describe("teardownPlan", () => {
  it("orders workloads first and includes only this Agent's exactly marked objects", () => {
    const plan = teardownPlan(
      {
        NetworkPolicy: [obj("agent-egress", "n1", agentM)],
        ServiceAccount: [obj("gateway", "s1", agentM)],
        Secret: [obj("creds", "c1", rev1M), obj("foreign", "c2", foreignRevM)],
        ConfigMap: [obj("cfg", "m1", rev2M), obj("other-agent", "m2", otherAgentRevM)],
        Service: [obj("gateway", "v1", agentM)],
        Deployment: [obj("harness", "d2", rev1M), obj("gateway", "d1", agentM)],
      },
      TENANT,
      AGENT,
    );
    expect(plan.map((p) => `${p.kind}/${p.name}/${p.uid}`)).toEqual([
      "Deployment/gateway/d1",
      "Deployment/harness/d2",
      "Service/gateway/v1",
      "ConfigMap/cfg/m1",
      "Secret/creds/c1",
      "ServiceAccount/gateway/s1",
      "NetworkPolicy/agent-egress/n1",
    ]);
  });
});

describe("claims", () => {
  const workloads = workloadSettings({ storageClassName: "fast" });
  const [state, workspace] = desiredClaims({
    tenantId: TENANT,
    agentId: AGENT,
    executionMode: "dedicated",
    workloads,
  }) as [ClaimSpec, ClaimSpec];

  it.each([
    { mode: "embedded" as const, expected: [`gateway-state-${h(AGENT, 12)}`] },
    {
      mode: "dedicated" as const,
      expected: [`gateway-state-${h(AGENT, 12)}`, `workspace-${h(AGENT, 12)}`],
    },
  ])("$mode mode claims $expected", ({ mode, expected }) => {
    expect(
      desiredClaims({ tenantId: TENANT, agentId: AGENT, executionMode: mode, workloads }).map(
        (c) => c.name,
      ),
    ).toEqual(expected);
  });

  const good = renderClaim(workspace, "ns");
  const withSpec = (spec: PersistentVolumeClaim["spec"]): PersistentVolumeClaim => ({
    ...good,
    spec: { ...good.spec, ...spec },
  });
  it.each([
    { case: "absent", observed: null, verdict: "create" },
    { case: "as rendered", observed: good, verdict: "none" },
    {
      case: "size written differently but equal",
      observed: withSpec({ resources: { requests: { storage: "10240Mi" } } }),
      verdict: "none",
    },
    {
      case: "another access mode",
      observed: withSpec({ accessModes: ["ReadWriteMany"] }),
      verdict: "WORKLOAD_CLAIM_MISMATCH",
    },
    {
      case: "two access modes",
      observed: withSpec({ accessModes: ["ReadWriteOnce", "ReadOnlyMany"] }),
      verdict: "WORKLOAD_CLAIM_MISMATCH",
    },
    {
      case: "another size",
      observed: withSpec({ resources: { requests: { storage: "20Gi" } } }),
      verdict: "WORKLOAD_CLAIM_MISMATCH",
    },
    {
      case: "another storage class",
      observed: withSpec({ storageClassName: "slow" }),
      verdict: "WORKLOAD_CLAIM_MISMATCH",
    },
    {
      case: "another Agent's markers",
      observed: {
        ...good,
        metadata: {
          ...good.metadata,
          labels: { ...good.metadata?.labels, [LABELS.agent]: OTHER_AGENT },
        },
      },
      verdict: "KUBERNETES_OWNERSHIP_CONFLICT",
    },
    {
      case: "no markers",
      observed: { ...good, metadata: { name: workspace.name } },
      verdict: "KUBERNETES_OWNERSHIP_CONFLICT",
    },
    {
      case: "terminating",
      observed: {
        ...good,
        metadata: { ...good.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" },
      },
      verdict: "WORKLOAD_DELETION_PENDING",
    },
  ])("claimDecision: $case → $verdict", ({ observed, verdict }) => {
    const v = claimDecision(observed, workspace);
    expect(v.action === "stop" ? v.result.code : v.action).toBe(verdict);
  });

  it("the state claim is ReadWriteOnce with the configured size and class", () => {
    expect(renderClaim(state, "ns").spec).toEqual({
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: "1Gi" } },
      storageClassName: "fast",
    });
  });

  it.each([
    { case: "absent", observed: null, step: "absent" },
    {
      case: "exactly ours",
      observed: { ...good, metadata: { ...good.metadata, uid: "u-1" } },
      step: "delete",
    },
    {
      case: "hand-edited markers",
      observed: { ...good, metadata: { ...good.metadata, uid: "u-1", annotations: {} } },
      step: "KUBERNETES_OWNERSHIP_CONFLICT",
    },
    { case: "without a UID", observed: good, step: "KUBERNETES_OWNERSHIP_CONFLICT" },
  ])("claimTeardownStep: $case → $step", ({ observed, step }) => {
    const s = claimTeardownStep(observed, workspace);
    expect("step" in s ? s.step : s.code).toBe(step);
    if ("step" in s && s.step === "delete") expect(s.uid).toBe("u-1");
  });
});
