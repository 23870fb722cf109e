/**
 * Agents inside the seal, on the real cluster and PostgreSQL, as the chart-rendered worker
 * identity: two Agents recorded in the database, each with the `agent-egress-<h12>` policy
 * Compute renders for it (written by the worker, as its deploy writes it), a declared
 * NetworkPolicy in `operatorWorkspaceResources` — the pass stays ready and `verify` agrees;
 * a hand-added policy, an edited Agent policy, an edited operatorWorkspaceResources policy and
 * the policy of an Agent that does not exist are each refused by both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PREPROVISIONED_MESSAGES,
  agentEgressPolicy,
  newAgentId,
  type NetworkPolicy,
  type NetworkPolicySpec,
  type NamespaceId,
} from "../../../src/domain/index.js";
import { verifyPreprovisioned } from "../../../src/services/preprovisioned/verify.js";
import { preprovisionedClusterOf } from "../../../src/drivers/preprovisioned-cluster.js";
import { createDriverSet } from "../../../src/drivers/factory.js";
import { driverProfileOf } from "../../../src/drivers/profile.js";
import { agentIdsOf } from "../../../src/store/agents.js";
import type { Db } from "../../../src/store/db.js";
import { uniqueName } from "../../harness/kube.js";
import { admin } from "../../harness/preprovisioned.js";
import {
  DECLARED_POLICY,
  passInput,
  bootstrapAndPrepare,
  profileConfig,
  profileDocument,
  sandboxPolicy,
  type Prepared,
} from "./fixtures.js";
import { closePrepared, recordAgents } from "./file-stacks.js";

/** A NetworkPolicy declared in operatorWorkspaceResources (treated as declared by the seal). */
const WORKSPACE_POLICY = sandboxPolicy("openshell-workspace-ingress", ["Ingress"], {
  ingress: [{ from: [{ podSelector: { matchLabels: { app: "openshell-gateway" } } }] }],
});

let db: Db;
let drop: () => Promise<void>;
let p: Prepared;
let id: NamespaceId;
const agents: string[] = [];

function config() {
  const doc = profileDocument();
  const openshell = doc.openshell as { gateway: { operatorWorkspaceResources: unknown[] } };
  return profileConfig({
    openshell: {
      ...openshell,
      gateway: {
        ...openshell.gateway,
        operatorWorkspaceResources: [
          ...openshell.gateway.operatorWorkspaceResources,
          WORKSPACE_POLICY,
        ],
      },
    },
  });
}

const lookup = (tenantId: string) => agentIdsOf(db, tenantId as NamespaceId);
const driver = () =>
  createDriverSet({
    config: p.config,
    profile: driverProfileOf(p.config, p.binding),
    client: p.worker,
    agentIds: lookup,
  }).compute;
const verify = () =>
  verifyPreprovisioned(preprovisionedClusterOf(p.worker), p.config, p.binding, {
    agentIds: lookup,
  });

beforeAll(async () => {
  ({ db, drop, id, p } = await bootstrapAndPrepare(config()));
  for (const agentId of await recordAgents(db, id, p.name, p.binding.uid, 2)) {
    agents.push(agentId);
    // The worker writes the Agent's egress policy exactly as Compute renders it.
    await p.worker.create("NetworkPolicy", agentPolicy(agentId));
  }
});

afterAll(async () => {
  closePrepared(p);
  await drop();
});

function agentPolicy(agentId: string): NetworkPolicy {
  return agentEgressPolicy({
    tenantId: id,
    namespace: p.name,
    agentId,
    egressAuthority: p.config.egressAuthority,
    dns: p.config.compute.dns,
  }) as unknown as NetworkPolicy;
}

/** The pass's reason names the policy (in its fix); verify lists the requirement in full. */
async function expectRefusedByBoth(policy: string, fragment: string): Promise<void> {
  const result = await driver().ensureNamespace(passInput(id));
  expect(result).toMatchObject({ outcome: "failed", code: "KUBERNETES_OWNERSHIP_CONFLICT" });
  const reason = result.outcome === "failed" ? result.reason : "";
  expect(reason.startsWith(PREPROVISIONED_MESSAGES.sealedPolicies)).toBe(true);
  expect(reason).toContain(`NetworkPolicy ${policy}`);
  const failures = await verify();
  expect(failures.map((f) => f.requirement).join("\n")).toContain(fragment);
}

async function expectReadyAndVerified(): Promise<void> {
  expect((await driver().ensureNamespace(passInput(id))).outcome).toBe("ready");
  expect(await verify()).toEqual([]);
}

/** Replaces a policy's spec as the administrator; returns the undo. */
async function editSpec(name: string, spec: NetworkPolicySpec): Promise<() => Promise<void>> {
  const ref = { name, namespace: p.name };
  const before = await admin().get("NetworkPolicy", ref);
  const patch = (value: unknown) =>
    admin().patch("NetworkPolicy", ref, [{ op: "replace", path: "/spec", value }], {
      type: "json",
    });
  await patch(spec);
  return async () => {
    await patch(before.spec);
  };
}

describe("a preprovisioned tenant with two Agents", () => {
  it("stays ready and verify passes (Agent policies and operatorWorkspaceResources policy admitted)", async () => {
    expect(await agentIdsOf(db, id)).toEqual(agents);
    const live = await admin().list("NetworkPolicy", { namespace: p.name });
    const names = live.map((x) => x.metadata.name);
    for (const agentId of agents) expect(names).toContain(agentPolicy(agentId).metadata.name);
    expect(names).toContain(WORKSPACE_POLICY.metadata.name);
    expect(names).toContain(DECLARED_POLICY.metadata.name);
    await expectReadyAndVerified();
    await expectReadyAndVerified(); // a later pass over the same namespace too
  });

  it("a hand-added policy is still refused", async () => {
    const name = uniqueName("allow-all");
    const created = await admin().create("NetworkPolicy", {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name, namespace: p.name },
      spec: { podSelector: {}, policyTypes: ["Egress"], egress: [{}] },
    });
    try {
      await expectRefusedByBoth(name, `NetworkPolicy ${name}`);
    } finally {
      await admin().delete(
        "NetworkPolicy",
        { name, namespace: p.name },
        { uid: created.metadata.uid ?? "" },
      );
    }
    await expectReadyAndVerified();
  });

  it("an edited Agent policy is refused", async () => {
    const name = agentPolicy(agents[0] ?? "").metadata.name ?? "";
    const undo = await editSpec(name, { ...agentPolicy(agents[0] ?? "").spec, egress: [{}] });
    try {
      await expectRefusedByBoth(
        name,
        `NetworkPolicy ${name} has the spec Compute renders for Agent`,
      );
    } finally {
      await undo();
    }
    await expectReadyAndVerified();
  });

  it("an edited operatorWorkspaceResources policy is refused, naming its key", async () => {
    const undo = await editSpec(WORKSPACE_POLICY.metadata.name, {
      ...WORKSPACE_POLICY.spec,
      ingress: [{}],
    });
    try {
      await expectRefusedByBoth(
        WORKSPACE_POLICY.metadata.name,
        `NetworkPolicy ${WORKSPACE_POLICY.metadata.name} has the spec declared in openshell.gateway.operatorWorkspaceResources[3]`,
      );
    } finally {
      await undo();
    }
    await expectReadyAndVerified();
  });

  it("the egress policy of an Agent that does not exist is refused", async () => {
    const ghost = newAgentId();
    const created = await p.worker.create("NetworkPolicy", agentPolicy(ghost));
    try {
      await expectRefusedByBoth(
        agentPolicy(ghost).metadata.name ?? "",
        `NetworkPolicy ${agentPolicy(ghost).metadata.name} is the egress policy of an Agent of this Namespace`,
      );
    } finally {
      await admin().delete(
        "NetworkPolicy",
        { name: agentPolicy(ghost).metadata.name ?? "", namespace: p.name },
        { uid: created.metadata.uid ?? "" },
      );
    }
    await expectReadyAndVerified();
  });
});
