/**
 * The worker process (`occ worker`, as `occ-worker` with the chart's rules) claims both kinds
 * of work from one loop: Namespace placement and Agent revisions/teardowns, dispatched by
 * kind, woken by NOTIFY.
 */
import pino from "pino";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { workloadNames } from "../../../src/domain/index.js";
import { registerControlPlaneMetrics } from "../../../src/main/metrics.js";
import { workerQueues } from "../../../src/work/queues.js";
import { startWorkerProcess } from "../../../src/main/processes.js";
import type { RunningWorker } from "../../../src/worker/worker.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { admin, prepareExternal } from "../compute/fixtures.js";
import { call, createTenant, startTenantApi, type TenantApi } from "../tenant/fixtures.js";
import {
  agentObjectsEverywhere,
  createAgent,
  deploy,
  markAvailable,
  releaseTerminatingClaims,
} from "./fixtures.js";

let api: TenantApi;
let worker: RunningWorker;
const registry = new Registry();
beforeAll(async () => {
  api = await startTenantApi();
  const config = validateInstallationConfig(
    { kubernetes: { kubeconfig: inject("env").kubeconfigs["occ-worker"] } },
    "test",
  );
  const metrics = registerControlPlaneMetrics(registry, api.db, workerQueues(config));
  worker = await startWorkerProcess({
    db: api.db,
    config,
    logger: pino({ level: "silent" }),
    metrics,
  });
});
afterAll(async () => {
  await worker.stop();
  await api.close();
});

describe("occ worker", () => {
  it("places the Namespace, rolls the Agent out and tears it down, all from one loop", async () => {
    const prepared = await prepareExternal();
    const ns = prepared.metadata?.name ?? "";
    await bindTenantRole(ns, "occ-worker");
    await bindTenantRole(ns, "occ-api");
    const id = await createTenant(api, uniqueName("worker"), ns);
    await eventually("the Namespace is ready", async () => {
      const r = await call(api, "GET", `/namespaces/${id}`);
      return (r.body.data as { status: string }).status === "ready";
    });

    const { agentId } = await createAgent(api, id, "dedicated");
    const revisionId = await deploy(api, id, agentId);
    const { gateway } = workloadNames(agentId, revisionId);
    await eventually(
      "the gateway Deployment exists",
      async () => (await admin.find("Deployment", { name: gateway, namespace: ns })) !== undefined,
    );
    await markAvailable(ns, gateway);
    await eventually("the revision is active", async () => {
      const r = await call(
        api,
        "GET",
        `/namespaces/${id}/agents/${agentId}/revisions/${revisionId}`,
      );
      return (r.body.data as { status: string }).status === "active";
    });

    expect((await call(api, "DELETE", `/namespaces/${id}/agents/${agentId}`)).status).toBe(202);
    await eventually("the Agent is gone", async () => {
      await releaseTerminatingClaims(ns, agentId);
      return (await call(api, "GET", `/namespaces/${id}/agents/${agentId}`)).status === 404;
    });
    expect(await agentObjectsEverywhere(agentId)).toEqual([]);
    const audit = await api.db.query<{ action: string; outcome: string }>(
      "SELECT action, outcome FROM audit_events WHERE resource_id = $1 ORDER BY occurred_at, id",
      [agentId],
    );
    // Consecutive lifecycle events of one kind (pending, then done) collapse to one here.
    const actions = audit.rows
      .map((r) => r.action)
      .filter((action, i, all) => action !== all[i - 1]);
    expect(actions).toEqual([
      "agents.create",
      "agents.deploy",
      "agents.lifecycle.deploy",
      "agents.delete",
      "agents.lifecycle.teardown",
    ]);
    expect(audit.rows.every((r) => r.outcome === "success")).toBe(true);

    // Agent passes are measured like Namespace passes, and the Agent queue is reported.
    const exposed = await registry.metrics();
    expect(exposed).toMatch(
      /occ_reconcile_duration_seconds_count\{kind="agent.deploy",outcome="\w+"\} [1-9]/,
    );
    expect(exposed).toMatch(
      /occ_reconcile_duration_seconds_count\{kind="agent.teardown",outcome="\w+"\} [1-9]/,
    );
    expect(exposed).toMatch(/occ_work_queue_depth\{kind="agent.deploy",state="claimed"\} 0/);
  });
});
