import { describe, expect, it } from "vitest";
import {
  LABELS,
  workloadMarkers,
  agentObjectNames,
  type NamespaceId,
} from "../../../src/domain/index.js";
import type { KindObject } from "../../../src/drivers/kubernetes/client/index.js";
import { eventually } from "../../harness/kube.js";
import { admin } from "../compute/fixtures.js";
import { call, readyExternal, tenantApiForFile } from "../tenant/fixtures.js";
import {
  agentObjectsEverywhere,
  agentPass,
  createAgent,
  deploy,
  rollOut,
  tearDown,
} from "./fixtures.js";

const api = await tenantApiForFile();

async function deployed(id: NamespaceId, ns: string, mode: "embedded" | "dedicated") {
  const { agentId } = await createAgent(api, id, mode);
  await deploy(api, id, agentId);
  await rollOut(api, ns, agentId);
  return agentId;
}

async function deleteAgent(id: NamespaceId, agentId: string): Promise<void> {
  const res = await call(api, "DELETE", `/namespaces/${id}/agents/${agentId}`);
  expect(res.status, res.text).toBe(202);
  expect(res.body.data).toMatchObject({ status: "deleting" });
}

const pvc = (name: string, ns: string) =>
  admin.find("PersistentVolumeClaim", { name, namespace: ns });

/** As someone else: remove the claim (finalizer included) and wait until it is gone. */
async function forceRemove(name: string, ns: string): Promise<void> {
  const found = await pvc(name, ns);
  if (found === undefined) return;
  await admin.delete(
    "PersistentVolumeClaim",
    { name, namespace: ns },
    { uid: found.metadata.uid ?? "" },
  );
  await admin
    .patch(
      "PersistentVolumeClaim",
      { name, namespace: ns },
      { metadata: { finalizers: null } },
      { type: "merge" },
    )
    .catch(() => undefined);
  await eventually("the claim is gone", async () => (await pvc(name, ns)) === undefined);
}

function foreignClaim(
  name: string,
  ns: string,
  opts: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    modes?: string[];
    size?: string;
  } = {},
) {
  return admin.create("PersistentVolumeClaim", {
    metadata: {
      name,
      namespace: ns,
      labels: opts.labels ?? { team: "other" },
      annotations: opts.annotations ?? {},
    },
    spec: {
      accessModes: opts.modes ?? ["ReadWriteOnce"],
      resources: { requests: { storage: opts.size ?? "1Gi" } },
    },
  });
}

describe("Agent teardown", () => {
  it("removes exactly the Agent's objects and both claims; the Namespace cannot be deleted until its Agents are gone", async () => {
    const { id, ns } = await readyExternal(api);
    const doomed = await deployed(id, ns, "dedicated");
    const kept = await deployed(id, ns, "embedded");
    const keptObjects = await agentObjectsEverywhere(kept);
    expect(keptObjects).toHaveLength(6);

    const refused = await call(api, "DELETE", `/namespaces/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe("NAMESPACE_NOT_EMPTY");
    expect(refused.body.error?.message).toContain("2 Agents");

    await deleteAgent(id, doomed);
    await tearDown(api, ns, doomed);
    expect(await agentObjectsEverywhere(doomed)).toEqual([]);
    const names = agentObjectNames(doomed);
    expect(await pvc(names.gatewayState, ns)).toBeUndefined();
    expect(await pvc(names.workspace, ns)).toBeUndefined();
    expect(await agentObjectsEverywhere(kept)).toEqual(keptObjects);
    expect((await call(api, "GET", `/namespaces/${id}/agents/${doomed}`)).status).toBe(404);
    expect((await call(api, "DELETE", `/namespaces/${id}`)).status).toBe(409);

    // The torn-down Agent's Configuration can go; the kept Agent's is in use: 409 naming it.
    const cfgs = await call(api, "GET", `/namespaces/${id}/configurations`);
    const answers: number[] = [];
    let keptConfiguration = "";
    for (const c of cfgs.body.data as { id: string }[]) {
      const res = await call(api, "DELETE", `/namespaces/${id}/configurations/${c.id}`);
      answers.push(res.status);
      if (res.status === 409) {
        keptConfiguration = c.id;
        expect(res.body.error?.message).toMatch(/^The Configuration is used by 1 Agent\(s\): /);
      }
    }
    expect(answers.sort()).toEqual([204, 409]);
    const onlyAgent = await call(api, "DELETE", `/namespaces/${id}`);
    expect(onlyAgent.status).toBe(409);
    expect(onlyAgent.body.error?.message).toContain(`1 Agent (${kept})`);

    await deleteAgent(id, kept);
    // Still refused while the Agent is being torn down.
    expect((await call(api, "DELETE", `/namespaces/${id}`)).status).toBe(409);
    await tearDown(api, ns, kept);
    expect(await agentObjectsEverywhere(kept)).toEqual([]);
    // Its Configuration is free now, and then nothing is left.
    const freed = await call(
      api,
      "DELETE",
      `/namespaces/${id}/configurations/${keptConfiguration}`,
    );
    expect(freed.status).toBe(204);
    const accepted = await call(api, "DELETE", `/namespaces/${id}`);
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.body.data).toMatchObject({ status: "deleting" });
  });

  it("refuses a claim whose markers were edited by hand, and does not delete it", async () => {
    const { id, ns } = await readyExternal(api);
    const agentId = await deployed(id, ns, "dedicated");
    const { workspace } = agentObjectNames(agentId);
    const edited = await admin.patch(
      "PersistentVolumeClaim",
      { name: workspace, namespace: ns },
      { metadata: { labels: { [LABELS.agent]: "agt_someone-else" } } },
      { type: "merge" },
    );
    await deleteAgent(id, agentId);
    let summary = await agentPass(api, agentId);
    for (
      let i = 0;
      i < 3 && "code" in summary && summary.code === "WORKLOAD_DELETION_PENDING";
      i += 1
    ) {
      summary = await agentPass(api, agentId);
    }
    expect(summary).toMatchObject({ move: "fail", code: "KUBERNETES_OWNERSHIP_CONFLICT" });
    const still = await pvc(workspace, ns);
    expect(still?.metadata.uid).toBe(edited.metadata.uid);
    expect(still?.metadata.deletionTimestamp).toBeUndefined();
    const agent = await call(api, "GET", `/namespaces/${id}/agents/${agentId}`);
    expect(agent.body.data).toMatchObject({
      status: "deleting",
      statusReason: { code: "KUBERNETES_OWNERSHIP_CONFLICT" },
    });
  });

  it("does not delete a claim that someone replaced between its verification and its deletion (UID precondition)", async () => {
    const { id, ns } = await readyExternal(api);
    const agentId = await deployed(id, ns, "embedded");
    const { gatewayState } = agentObjectNames(agentId);
    await deleteAgent(id, agentId);
    let replaced: KindObject<"PersistentVolumeClaim"> | undefined;
    const summary = await agentPass(api, agentId, {
      beforeClaimDelete: async ({ name }) => {
        if (name !== gatewayState || replaced !== undefined) return;
        await forceRemove(name, ns);
        // Someone else's claim under the same name, even carrying this Agent's markers.
        const markers = workloadMarkers(id, agentId, { scope: "agent" });
        replaced = await foreignClaim(name, ns, {
          labels: { ...markers.labels },
          annotations: { ...markers.annotations },
        });
      },
    });
    expect(summary).toMatchObject({ move: "retry", code: "KUBERNETES_CONFLICT" });
    const survivor = await pvc(gatewayState, ns);
    expect(survivor?.metadata.uid).toBeDefined();
    expect(survivor?.metadata.uid).toBe(replaced?.metadata.uid);
    expect(survivor?.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe("existing claims are verified, never patched", () => {
  it.each([
    { what: "access mode", modes: ["ReadWriteMany"], size: "1Gi" },
    { what: "size", modes: ["ReadWriteOnce"], size: "3Gi" },
  ])(
    "refuses a pre-existing gateway state claim with a different $what",
    async ({ modes, size }) => {
      const { id, ns } = await readyExternal(api);
      const { agentId } = await createAgent(api, id, "embedded");
      const { gatewayState, gateway } = agentObjectNames(agentId);
      const markers = workloadMarkers(id, agentId, { scope: "agent" });
      const existing = await foreignClaim(gatewayState, ns, {
        labels: { ...markers.labels },
        annotations: { ...markers.annotations },
        modes,
        size,
      });
      const revisionId = await deploy(api, id, agentId);
      const summary = await agentPass(api, agentId);
      expect(summary).toMatchObject({ move: "fail", code: "WORKLOAD_CLAIM_MISMATCH" });
      const after = await pvc(gatewayState, ns);
      expect(after?.metadata.resourceVersion).toBe(existing.metadata.resourceVersion);
      expect(after?.spec?.accessModes).toEqual(modes);
      expect(after?.spec?.resources?.requests?.storage).toBe(size);
      expect(await admin.find("Deployment", { name: gateway, namespace: ns })).toBeUndefined();
      const revision = await call(
        api,
        "GET",
        `/namespaces/${id}/agents/${agentId}/revisions/${revisionId}`,
      );
      expect(revision.body.data).toMatchObject({
        status: "failed",
        statusReason: { code: "WORKLOAD_CLAIM_MISMATCH" },
      });
    },
  );
});
