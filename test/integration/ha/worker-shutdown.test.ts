/**
 * Issue 40, the worker's shutdown whatever the API server does: an `occ worker` that lived
 * through an API-server outage (its requests refused or reset, then answered 403, its watches
 * restarting) or whose requests hang — a pass in flight included — exits within
 * {@link EXIT_BOUND_MS} of SIGTERM, with status 0 and without the shutdown deadline's forced
 * exit, and leaves nothing half-written: the interrupted pass settled nothing (its Namespace is
 * still `provisioning`, no lifecycle event, its work item claimable again) and the next worker
 * completes it. The worker talks to the shared cluster through a fault proxy, so the outage is
 * the proxy's and no other test file's cluster is disturbed.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentManagedName } from "../../../src/domain/index.js";
import { callApi } from "../../harness/api.js";
import { startFaultProxy, type Fault, type FaultProxy } from "../../harness/fault-proxy.js";
import { eventually } from "../../harness/kube.js";
import type { OccProcess } from "../../harness/occ.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import { readNamespace } from "../compute/fixtures.js";
import { startControlPlane, type ControlPlane } from "../e2e/control-plane.js";

/** The promise: a worker is gone this long after SIGTERM, whatever the API server does. */
const EXIT_BOUND_MS = 10_000;

let plane: ControlPlane;
let proxy: FaultProxy;
/** What the proxy does with every request of the worker now. */
let mode: Fault = { action: "pass" };

const worker = (): OccProcess => {
  const w = plane.workers[0];
  if (w === undefined) throw new Error("no worker");
  return w;
};

/** SIGTERM; how long the worker took to exit and how (killed after 30 s if it did not). */
async function terminate(w: OccProcess): Promise<{ ms: number; status: number | null }> {
  const started = Date.now();
  w.child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    w.exited,
    new Promise<null>((r) => {
      timer = setTimeout(() => {
        r(null);
      }, 30_000);
    }),
  ]);
  clearTimeout(timer);
  const ms = Date.now() - started;
  if (result === null) {
    await w.kill();
    throw new Error(
      `the worker did not exit within 30 s of SIGTERM; its last lines:\n${w.output.slice(-15).join("\n")}`,
    );
  }
  return { ms, status: result.status };
}

/** Every JSON log line of `w` whose message is `msg`. */
const logged = (w: OccProcess, msg: string) =>
  w.output.filter((l) => l.startsWith("{") && (JSON.parse(l) as { msg?: string }).msg === msg);

const isWatch = (path: string) => path.includes("watch=1");

beforeAll(async () => {
  await grantChartClusterRoles();
  proxy = await startFaultProxy(() => mode);
  const viaProxy = join(process.env.TMPDIR ?? "/tmp", `occ-shutdown-${process.pid}.kubeconfig`);
  await writeFile(viaProxy, proxy.kubeConfig("occ-worker").exportConfig());
  plane = await startControlPlane({
    workerKubeconfigs: [viaProxy],
    workerConfig: { leaseSeconds: 5, concurrency: 2 },
  });
}, 180_000);

afterAll(async () => {
  mode = { action: "pass" };
  await plane.stop();
  await proxy.close();
});

describe("occ worker: SIGTERM after or during an API-server outage", () => {
  it("after its requests were reset and refused with 403 (watches restarting): exits in time", async () => {
    await eventually(
      "the worker's caches synced",
      () => Promise.resolve(logged(worker(), "watch caches synced").length > 0),
      60_000,
    );
    mode = { action: "drop" };
    proxy.resetConnections();
    await eventually(
      "watches restarted after reset connections",
      () => Promise.resolve(logged(worker(), "watch restarted").length >= 5),
      30_000,
    );
    mode = { action: "status", status: 403 };
    const before = logged(worker(), "watch restarted").length;
    await eventually(
      "watches restarted after 403",
      () => Promise.resolve(logged(worker(), "watch restarted").length >= before + 5),
      30_000,
    );
    // The outage ends; the watches resume (their backoff timers may still be running).
    mode = { action: "pass" };
    const seen = proxy.seen.length;
    await eventually(
      "the worker's watches back",
      () => Promise.resolve(proxy.seen.slice(seen).filter((r) => isWatch(r.path)).length >= 5),
      60_000,
    );
    const exit = await terminate(worker());
    expect(exit.status, worker().output.slice(-10).join("\n")).toBe(0);
    expect(exit.ms).toBeLessThan(EXIT_BOUND_MS);
    expect(logged(worker(), "worker process stopped")).toHaveLength(1);
    expect(logged(worker(), "shutdown deadline passed")).toHaveLength(0);
  });

  it("while 403 is all it gets: exits in time", async () => {
    mode = { action: "status", status: 403 };
    const before = proxy.seen.length;
    await plane.startWorker(0);
    await eventually(
      "the worker asked and was refused",
      () => Promise.resolve(proxy.seen.length >= before + 10),
      30_000,
    );
    const exit = await terminate(worker());
    expect(exit.status).toBe(0);
    expect(exit.ms).toBeLessThan(EXIT_BOUND_MS);
    expect(logged(worker(), "shutdown deadline passed")).toHaveLength(0);
  });

  it("with a pass in flight whose requests hang: exits in time, the pass settled nothing, the next worker completes it", async () => {
    mode = { action: "hang" };
    await plane.startWorker(0);
    const created = await callApi(plane, "POST", "/namespaces", { name: "shutdown-hang" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = (created.body as { data: { id: string } }).data.id;
    const item = async () =>
      (
        await plane.db.query<{ state: string; claimed_by: string | null; attempt_count: number }>(
          "SELECT state, claimed_by, attempt_count FROM work_items WHERE idempotency_key = $1",
          [`namespace:${id}:ready`],
        )
      ).rows[0];
    // Claimed, and its first request held by the proxy: the pass is in flight.
    await eventually(
      "the worker's pass of the new Namespace is in flight",
      async () => (await item())?.claimed_by?.endsWith(`:${worker().pid}`) === true,
      30_000,
    );
    const stopped = worker();
    const exit = await terminate(stopped);
    expect(exit.status).toBe(0);
    expect(exit.ms).toBeLessThan(EXIT_BOUND_MS);
    expect(logged(stopped, "shutdown deadline passed")).toHaveLength(0);
    // Nothing half-written: no transition recorded, the Namespace still provisioning, its work
    // item not settled (given back or its lease left to expire).
    const status = await callApi(plane, "GET", `/namespaces/${id}`);
    expect((status.body as { data: { status: string } }).data.status).toBe("provisioning");
    const events = await plane.db.query(
      "SELECT action, details FROM audit_events WHERE kind = 'lifecycle' AND resource_id = $1",
      [id],
    );
    expect(events.rows, JSON.stringify([events.rows, stopped.output.slice(-8)])).toHaveLength(0);
    expect(["queued", "claimed"]).toContain((await item())?.state);
    // The next worker, with the API server back, completes it.
    mode = { action: "pass" };
    await plane.startWorker(0);
    const ns = currentManagedName(id);
    await eventually(`${ns} created`, async () => (await readNamespace(ns)) !== undefined, 60_000);
    await bindTenantRole(ns, "occ-worker");
    await eventually(
      `${id} ready`,
      async () =>
        (
          (await callApi(plane, "GET", `/namespaces/${id}`)).body as {
            data: { status: string };
          }
        ).data.status === "ready",
      60_000,
    );
    expect((await item())?.state).toBe("succeeded");
  });
});
