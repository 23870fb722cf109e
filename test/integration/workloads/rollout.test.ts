import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  WORKLOAD_KEYS,
  workloadNames,
  type NamespaceId,
} from "../../../src/domain/index.js";
import { admin } from "../compute/fixtures.js";
import { call, readyExternal, readyManaged, tenantApiForFile } from "../tenant/fixtures.js";
import {
  agentObjectsEverywhere,
  agentPass,
  createAgent,
  deploy,
  markAvailable,
  rollOut,
  workerWorkloads,
} from "./fixtures.js";

const api = await tenantApiForFile();

const uidOf = async (kind: "Deployment" | "PersistentVolumeClaim", name: string, ns: string) =>
  (await admin.get(kind, { name, namespace: ns })).metadata.uid;

async function revisionOf(id: NamespaceId, agentId: string, revisionId: string) {
  const res = await call(api, "GET", `/namespaces/${id}/agents/${agentId}/revisions/${revisionId}`);
  expect(res.status).toBe(200);
  return res.body.data as { status: string; number: number; configurationGeneration: number };
}

/**
 * Every object one revision of an Agent has in `ns`, as {@link agentObjectsEverywhere} lists
 * them: a dedicated revision adds the harness Deployment and its workspace claim.
 */
function revisionObjects(
  ns: string,
  n: ReturnType<typeof workloadNames>,
  mode: "embedded" | "dedicated",
): string[] {
  const dedicated =
    mode === "dedicated"
      ? [`Deployment/${ns}/${n.harness}`, `PersistentVolumeClaim/${ns}/${n.workspace}`]
      : [];
  return [
    `ConfigMap/${ns}/${n.config}`,
    `Deployment/${ns}/${n.gateway}`,
    `PersistentVolumeClaim/${ns}/${n.gatewayState}`,
    `Secret/${ns}/${n.credentials}`,
    `Service/${ns}/${n.gateway}`,
    `ServiceAccount/${ns}/${n.gateway}`,
    ...dedicated,
  ].sort();
}

describe("revision work (dedicated, external namespace)", () => {
  it("puts every object in the selected namespace, updates the one gateway in place to revision 2, keeps both claims and retires only revision 1's own objects", async () => {
    const { id, ns } = await readyExternal(api);
    const { agentId, configurationId } = await createAgent(api, id, "dedicated");
    const rev1 = await deploy(api, id, agentId);
    expect((await revisionOf(id, agentId, rev1)).status).toBe("queued");
    await rollOut(api, ns, agentId);
    expect((await revisionOf(id, agentId, rev1)).status).toBe("active");

    const n1 = workloadNames(agentId, rev1);
    const everywhere1 = await agentObjectsEverywhere(agentId);
    expect(everywhere1.every((o) => o.split("/")[1] === ns)).toBe(true);
    expect(everywhere1).toEqual(revisionObjects(ns, n1, "dedicated"));
    const gateway = await admin.get("Deployment", { name: n1.gateway, namespace: ns });
    expect(gateway.metadata.labels).toMatchObject({
      [LABELS.workloadRole]: "gateway",
      [LABELS.networkProfile]: "broad-egress-v1",
      [LABELS.agent]: agentId,
      [LABELS.namespace]: id,
      [LABELS.managedBy]: "openclaw-enterprise",
    });
    expect(gateway.metadata.annotations?.[ANNOTATIONS.agentId]).toBe(agentId);
    expect(gateway.spec).toMatchObject({ replicas: 1, strategy: { type: "Recreate" } });
    const harness = await admin.get("Deployment", { name: n1.harness, namespace: ns });
    expect(harness.metadata.labels?.[LABELS.revision]).toBe(rev1);
    expect(harness.metadata.annotations?.[ANNOTATIONS.revisionId]).toBe(rev1);
    const before = {
      gateway: await uidOf("Deployment", n1.gateway, ns),
      state: await uidOf("PersistentVolumeClaim", n1.gatewayState, ns),
      workspace: await uidOf("PersistentVolumeClaim", n1.workspace, ns),
    };

    // A pass over the unchanged, active Agent writes nothing.
    const { driver, client } = workerWorkloads();
    try {
      const again = await driver.deployRevision({
        tenant: {
          tenantId: id,
          placement: { mode: "external", existingNamespace: ns },
          recordedName: ns,
          recordedUid: (await admin.get("Namespace", { name: ns })).metadata.uid ?? null,
        },
        agentId,
        executionMode: "dedicated",
        revisionId: rev1,
        configurationDocument: JSON.stringify({ model: "m1" }),
        credential: null,
      });
      expect(again).toEqual({ outcome: "active", namespaceName: ns });
      expect(client.counter.writes()).toBe(0);
    } finally {
      client.close();
    }
    const rv = (
      await admin.get("Deployment", {
        name: n1.gateway,
        namespace: ns,
      })
    ).metadata.resourceVersion;

    const updated = await call(
      api,
      "PATCH",
      `/namespaces/${id}/configurations/${configurationId}`,
      {
        body: { values: { model: "m2" } },
      },
    );
    expect(updated.status).toBe(200);
    const rev2 = await deploy(api, id, agentId);
    expect((await revisionOf(id, agentId, rev2)).configurationGeneration).toBe(2);
    const pending = await agentPass(api, agentId);
    expect(pending).toMatchObject({ move: "defer", code: "WORKLOAD_ROLLOUT_PENDING" });
    // Until revision 2 is available, revision 1's objects stay.
    expect(await admin.find("Deployment", { name: n1.harness, namespace: ns })).toBeDefined();
    const switched = await admin.get("Deployment", {
      name: n1.gateway,
      namespace: ns,
    });
    expect(switched.metadata.resourceVersion).not.toBe(rv);
    await markAvailable(ns, n1.gateway);
    expect(await agentPass(api, agentId)).toMatchObject({ move: "complete" });

    const n2 = workloadNames(agentId, rev2);
    const after = await admin.get("Deployment", { name: n2.gateway, namespace: ns });
    expect(after.metadata.uid).toBe(before.gateway);
    expect(after.metadata.annotations?.[WORKLOAD_KEYS.activeRevision]).toBe(rev2);
    expect(await uidOf("PersistentVolumeClaim", n2.gatewayState, ns)).toBe(before.state);
    expect(await uidOf("PersistentVolumeClaim", n2.workspace, ns)).toBe(before.workspace);
    expect(await agentObjectsEverywhere(agentId)).toEqual(revisionObjects(ns, n2, "dedicated"));
    const config2 = await admin.get("ConfigMap", {
      name: n2.config,
      namespace: ns,
    });
    expect(JSON.parse(config2.data?.["openclaw.json"] ?? "{}")).toEqual({ model: "m2" });
    expect((await revisionOf(id, agentId, rev1)).status).toBe("retired");
    expect((await revisionOf(id, agentId, rev2)).status).toBe("active");
    const agent = await call(api, "GET", `/namespaces/${id}/agents/${agentId}`);
    expect(agent.body.data).toMatchObject({ currentRevisionId: rev2, status: "active" });
    const list = await call(api, "GET", `/namespaces/${id}/agents/${agentId}/revisions`);
    expect((list.body.data as { id: string }[]).map((r) => r.id)).toEqual([rev1, rev2]);
  });
});

describe("revision work (embedded, managed namespace)", () => {
  it("puts every object in the oce-… namespace and nowhere else; no harness, no workspace claim", async () => {
    const { id, ns } = await readyManaged(api);
    expect(ns).toMatch(/^oce-[0-9a-f]{15}$/);
    const { agentId } = await createAgent(api, id, "embedded");
    const rev = await deploy(api, id, agentId);
    await rollOut(api, ns, agentId);
    const n = workloadNames(agentId, rev);
    expect(await agentObjectsEverywhere(agentId)).toEqual(revisionObjects(ns, n, "embedded"));
  });
});
