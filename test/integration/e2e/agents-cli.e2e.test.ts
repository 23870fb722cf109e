import { describe, expect, it } from "vitest";
import type { AgentView, RevisionView } from "../../../src/contract/agents.js";
import { workloadNames } from "../../../src/domain/index.js";
import { eventually } from "../../harness/kube.js";
import { runOccAsync, type OccResult } from "../../harness/occ.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { admin, prepareExternal } from "../compute/fixtures.js";
import {
  agentObjectsEverywhere,
  markAvailable,
  releaseTerminatingClaims,
} from "../workloads/fixtures.js";
import { controlPlaneForFile, type ControlPlane } from "./control-plane.js";
import { callApi } from "../../harness/api.js";

let plane: ControlPlane;

/** Runs `occ` without blocking the test (it may wait on what the test does meanwhile). */
function occ(args: readonly string[]): Promise<OccResult> {
  return runOccAsync(args, { env: { OCC_API_URL: plane.apiUrl, OCC_API_KEY: plane.apiKey } });
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  return ((await callApi(plane, method, path, body)).body as { data: T }).data;
}

controlPlaneForFile({}, (started) => {
  plane = started;
});

describe("occ agents (the operator CLI against the API and worker processes)", () => {
  it("create → deploy --wait shows the rollout until the gateway is available → revisions → delete --wait", async () => {
    const prepared = await prepareExternal();
    const k8s = prepared.metadata?.name ?? "";
    await bindTenantRole(k8s, "occ-worker");
    const ns = await api<{ id: string }>("POST", "/namespaces", {
      name: "agents-cli",
      existingNamespace: k8s,
    });
    await eventually("the Namespace is ready", async () => {
      return (await api<{ status: string }>("GET", `/namespaces/${ns.id}`)).status === "ready";
    });
    const cfg = await api<{ id: string }>("POST", `/namespaces/${ns.id}/configurations`, {
      kind: "agent",
      values: { model: "m1" },
    });

    const created = await occ([
      "agents",
      "create",
      ns.id,
      "support-bot",
      "--configuration",
      cfg.id,
      "-o",
      "json",
    ]);
    expect(created.status, created.stderr).toBe(0);
    const agent = JSON.parse(created.stdout) as AgentView;
    expect(agent).toMatchObject({
      name: "support-bot",
      executionMode: "embedded",
      status: "active",
    });

    // deploy --wait blocks until the gateway reports the revision available (no kubelet here:
    // the test plays the Deployment controller once the gateway exists).
    const deploying = occ([
      "agents",
      "deploy",
      ns.id,
      agent.id,
      "--wait",
      "--timeout",
      "90s",
      "-o",
      "json",
    ]);
    const gateway = await eventually("the gateway Deployment exists", async () => {
      const list = await admin.list("Deployment", { namespace: k8s });
      return list.length > 0;
    }).then(
      async () => (await admin.list("Deployment", { namespace: k8s }))[0]?.metadata.name ?? "",
    );
    await markAvailable(k8s, gateway);
    const deployed = await deploying;
    expect(deployed.status, deployed.stderr).toBe(0);
    const revision = JSON.parse(deployed.stdout) as RevisionView;
    expect(revision).toMatchObject({ number: 1, status: "active" });
    expect(gateway).toBe(workloadNames(agent.id, revision.id).gateway);
    expect(deployed.stderr).toMatch(/revision 1: queued — WORKLOAD_ROLLOUT_PENDING: /);

    const history = await occ(["agents", "revisions", ns.id, agent.id]);
    expect(history.status, history.stderr).toBe(0);
    expect(history.stdout.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^ID\s+NUMBER\s+STATUS\s+REASON$/),
      expect.stringMatching(new RegExp(`^${revision.id}\\s+1\\s+active$`)),
    ]);

    const deleting = occ(["agents", "delete", ns.id, agent.id, "--wait", "--timeout", "90s"]);
    const released = (async () => {
      for (let i = 0; i < 200 && (await agentObjectsEverywhere(agent.id)).length > 0; i++) {
        await releaseTerminatingClaims(k8s, agent.id);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const deleted = await deleting;
    await released;
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(deleted.stderr).toContain(`${agent.id}: deleted`);
    expect(await agentObjectsEverywhere(agent.id)).toEqual([]);

    const gone = await occ(["agents", "get", ns.id, agent.id]);
    expect(gone.status).toBe(1);
    expect(gone.stderr).toContain(`occ: Agent ${agent.id} not found`);
  }, 240_000);
});
