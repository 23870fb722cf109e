/**
 * The bounded Kubernetes client (issue 39 §3): one token bucket per process paces every
 * request, the time waited is `occ_kubernetes_client_wait_seconds`, and watches do not take
 * tokens. Proven against the real API server's own count of the requests it received.
 */
import pino from "pino";
import { Registry } from "prom-client";
import { afterAll, describe, expect, inject, it } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import {
  RequestLimiter,
  createObjectClient,
  loadKubeConfig,
} from "../../../src/drivers/kubernetes/client/index.js";
import { registerControlPlaneMetrics } from "../../../src/main/metrics.js";
import { startWorkerProcess } from "../../../src/main/processes.js";
import { workerQueues } from "../../../src/work/queues.js";
import { migratedDatabaseForFile } from "../../harness/db.js";
import { grantChartClusterRoles } from "../../harness/rbac.js";
import { apiServerMetrics, eventually, seriesSum, uniqueName } from "../../harness/kube.js";

const database = await migratedDatabaseForFile();
const admin = createObjectClient(loadKubeConfig(inject("env").kubeconfigs.admin));
afterAll(() => {
  admin.close();
});

/** The API server's count of dry-run ConfigMap creates: only this file sends them. */
async function dryRunCreates(): Promise<number> {
  return seriesSum(await apiServerMetrics(), "apiserver_request_total", {
    verb: "POST",
    resource: "configmaps",
    dry_run: "All",
  });
}

describe("the Kubernetes client's token bucket", () => {
  it("paces a burst of 30 requests at 10/s after 5 at once: the API server receives them over 2.5 s, the waits are exported", async () => {
    const ns = uniqueName("rl");
    await admin.create("Namespace", { metadata: { name: ns } });
    const registry = new Registry();
    const metrics = registerControlPlaneMetrics(registry, database.db, []);
    const limiter = new RequestLimiter({ qps: 10, burst: 5 });
    metrics.observeKubernetesWaits(limiter);
    const client = createObjectClient(loadKubeConfig(inject("env").kubeconfigs.admin), {
      limiter,
    });
    const before = await dryRunCreates();
    const started = performance.now();
    const burst = Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        client.create(
          "ConfigMap",
          { metadata: { name: `c${i}`, namespace: ns } },
          { dryRun: true },
        ),
      ),
    );
    // One second in: the 5 of the burst and about 10 more, never the 30 an unbounded client sends.
    await new Promise((r) => setTimeout(r, 1_000));
    const atOneSecond = (await dryRunCreates()) - before;
    const elapsedAtSample = (performance.now() - started) / 1000;
    await burst;
    const seconds = (performance.now() - started) / 1000;
    client.close();

    expect(atOneSecond).toBeGreaterThanOrEqual(5);
    expect(atOneSecond).toBeLessThanOrEqual(5 + Math.ceil(10 * elapsedAtSample) + 1);
    expect((await dryRunCreates()) - before).toBe(30);
    expect(seconds).toBeGreaterThanOrEqual(2.4);
    const text = await registry.metrics();
    expect(seriesSum(text, "occ_kubernetes_client_wait_seconds_count")).toBe(30);
    // Waits of 0.1 s, 0.2 s … 2.5 s for the 25 past the burst, 32.5 s in all when all 30 ask
    // at once (less when a busy machine spreads the asks: the refill pays for the gaps).
    const waited = seriesSum(text, "occ_kubernetes_client_wait_seconds_sum");
    expect(waited).toBeGreaterThan(25);
    expect(waited).toBeLessThanOrEqual(32.5 + 1e-6);
    expect(seriesSum(text, "occ_kubernetes_client_wait_seconds_bucket", { le: "0.001" })).toBe(5);
  });

  it("the worker process gives its caches' LISTs and its passes one bucket; its watches take no token", async () => {
    const config = validateInstallationConfig(
      {
        kubernetes: {
          kubeconfig: inject("env").kubeconfigs["occ-worker"],
          rateLimit: { worker: { qps: 50, burst: 2 } },
        },
      },
      "test",
    );
    expect(config.kubernetes.rateLimit).toEqual({
      worker: { qps: 50, burst: 2 },
      api: { qps: 100, burst: 200 },
    });
    await grantChartClusterRoles();
    const registry = new Registry();
    const metrics = registerControlPlaneMetrics(registry, database.db, workerQueues(config));
    const worker = await startWorkerProcess({
      db: database.db,
      config,
      logger: pino({ level: "silent" }),
      metrics,
    });
    try {
      let text = "";
      await eventually(
        () => `every watched kind listed once and watched:\n${text}`,
        async () => {
          text = await registry.metrics();
          return seriesSum(text, "occ_kubernetes_requests_total", { verb: "watch" }) >= 5;
        },
        30_000,
      );
      const lists = seriesSum(text, "occ_kubernetes_requests_total", { verb: "list" });
      const all = seriesSum(text, "occ_kubernetes_requests_total");
      const watches = seriesSum(text, "occ_kubernetes_requests_total", { verb: "watch" });
      expect(lists).toBeGreaterThanOrEqual(5);
      // Every request but the watches took a token; past the burst of 2, the LISTs waited.
      expect(seriesSum(text, "occ_kubernetes_client_wait_seconds_count")).toBe(all - watches);
      expect(seriesSum(text, "occ_kubernetes_client_wait_seconds_sum")).toBeGreaterThan(0);
    } finally {
      await worker.stop();
    }
  });
});
