/**
 * Issue 19 item 3: PostgreSQL restarts (an upgrade, a failover) under a running `occ api` and
 * `occ worker`. While it is down, the API's `/readyz` and the worker's `/readyz` answer 503 and
 * requests get 503 `DEPENDENCY_UNAVAILABLE` (the stable, retryable code); once it is back both
 * turn ready again and everything works WITHOUT restarting either process — the pools reconnect,
 * the worker's claim loop resumes and a Namespace created after the restart becomes ready.
 * Stopping the run's shared server would disturb every other file, so this file starts its own.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentManagedName } from "../../../src/domain/index.js";
import { eventually } from "../../harness/kube.js";
import { startTestPostgres, type TestPostgres } from "../../harness/postgres.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import { readNamespace } from "../compute/fixtures.js";
import { startControlPlane, type ControlPlane } from "../e2e/control-plane.js";
import { callApi } from "../../harness/api.js";

let dir: string;
let postgres: TestPostgres;
let plane: ControlPlane;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-pg-restart-"));
  postgres = await startTestPostgres(dir);
  await grantChartClusterRoles();
  plane = await startControlPlane({
    adminDatabaseUrl: postgres.adminUrl,
    workerConfig: { leaseSeconds: 3 },
  });
}, 180_000);

afterAll(async () => {
  await plane.stop();
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
});

const status = async (url: string) => (await fetch(url)).status;
const apiReadyz = () => status(`${plane.apiUrl}/readyz`);
const workerReadyz = () => status(plane.workerMetricsUrl.replace(/\/metrics$/, "/readyz"));

async function readyManaged(name: string): Promise<string> {
  const res = await callApi(plane, "POST", "/namespaces", { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = (res.body as { data: { id: string } }).data.id;
  const ns = currentManagedName(id);
  await eventually(`${ns} created`, async () => (await readNamespace(ns)) !== undefined, 90_000);
  await bindTenantRole(ns, "occ-worker");
  await eventually(
    `${id} ready`,
    async () => {
      const view = await callApi(plane, "GET", `/namespaces/${id}`);
      return (view.body as { data?: { status: string } }).data?.status === "ready";
    },
    90_000,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}\n${plane.workerOutput.slice(-20).join("\n")}`);
  });
  return id;
}

describe("PostgreSQL restarts under a running API and worker", () => {
  it("unready and 503 DEPENDENCY_UNAVAILABLE while it is down; ready and working after, with the same processes", async () => {
    const before = await readyManaged("pg-before");
    expect(await apiReadyz()).toBe(200);
    expect(await workerReadyz()).toBe(200);
    const worker = plane.workers[0];

    const down: { readyz: number; worker: number; get: unknown; post: unknown }[] = [];
    await postgres.restart(async () => {
      const get = await callApi(plane, "GET", `/namespaces/${before}`);
      const post = await callApi(plane, "POST", "/namespaces", { name: "pg-during" });
      down.push({
        readyz: await apiReadyz(),
        worker: await workerReadyz(),
        get: { status: get.status, body: get.body },
        post: { status: post.status, body: post.body },
      });
    });
    const code = (body: unknown) => (body as { error?: { code?: string } }).error?.code;
    const [seen] = down;
    expect(seen?.readyz).toBe(503);
    expect(seen?.worker).toBe(503);
    for (const r of [seen?.get, seen?.post] as { status: number; body: unknown }[]) {
      expect(r.status, JSON.stringify(r.body)).toBe(503);
      expect(code(r.body)).toBe("DEPENDENCY_UNAVAILABLE");
    }

    // Back: ready again without any process restarted.
    await eventually("API /readyz 200 again", async () => (await apiReadyz()) === 200, 60_000);
    await eventually(
      "worker /readyz 200 again",
      async () => (await workerReadyz()) === 200,
      60_000,
    );
    expect(plane.workers[0]).toBe(worker);
    expect([worker?.child.exitCode, worker?.child.signalCode]).toEqual([null, null]);
    // The refused create stored nothing.
    const during = await plane.db.query("SELECT id FROM namespaces WHERE name = 'pg-during'");
    expect(during.rows).toEqual([]);
    // Reads work through the reconnected pool; the worker's claim loop resumed.
    const read = await callApi(plane, "GET", `/namespaces/${before}`);
    expect((read.body as { data: { status: string } }).data.status).toBe("ready");
    const after = await readyManaged("pg-after");
    const rows = await plane.db.query<{ status: string }>(
      "SELECT status FROM namespaces WHERE id = $1",
      [after],
    );
    expect(rows.rows[0]?.status).toBe("ready");
    const logged = plane.apiOutput.join("\n");
    expect(logged).toContain("DEPENDENCY_UNAVAILABLE");
  });
});
