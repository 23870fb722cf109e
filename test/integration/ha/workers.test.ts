/**
 * Issue 19 item 3, the workers: two `occ worker` processes (and two `occ api` processes) on
 * one PostgreSQL and the shared cluster. Asserted on state — queue rows, the lifecycle audit
 * trail (each event names the worker holding the lease and its attempt), the namespaces the
 * API server holds — never on timing alone:
 *
 * - a worker frozen (SIGSTOP) in the middle of a pass loses its claim once its lease expires;
 *   the other worker takes the work over and settles it; the frozen one, resumed, publishes
 *   nothing (its settle is fenced: "stale");
 * - a worker SIGKILLed in the middle of a pass: the other takes its work over after the lease;
 * - many Namespaces through both APIs and both workers: one lifecycle event per transition,
 *   one namespace per tenant, every queue item settled.
 *
 * Worker A talks to the API server through a fault proxy that can hold its namespace creation,
 * which is how "in the middle of a pass" is made certain rather than hoped for.
 */
import { writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LABELS, currentManagedName } from "../../../src/domain/index.js";
import { startFaultProxy, type FaultProxy } from "../../harness/fault-proxy.js";
import { eventually } from "../../harness/kube.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import { admin, readNamespace } from "../compute/fixtures.js";
import { startControlPlane, type ControlPlane } from "../e2e/control-plane.js";
import { callApi } from "../../harness/api.js";

const LEASE_SECONDS = 3;
const A = 0;
const B = 1;

let plane: ControlPlane;
let proxy: FaultProxy;
/** While set, worker A's `POST /api/v1/namespaces` waits for it (the proxy holds the request). */
let hold: { promise: Promise<void>; release: () => void } | null = null;

function newHold(): NonNullable<typeof hold> {
  let release: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    release = r;
  });
  return { promise, release };
}

const isNamespaceCreate = (method: string, path: string) =>
  method === "POST" && path.split("?")[0] === "/api/v1/namespaces";

const owner = (index: number) => `${hostname()}:${plane.workers[index]?.pid ?? 0}`;

interface AuditRow {
  resource_id: string;
  occurred_at: Date;
  details: { from?: string; to?: string; worker?: string; attempt?: number; workItem?: string };
}

async function lifecycleEvents(id: string): Promise<AuditRow[]> {
  const res = await plane.db.query<AuditRow>(
    `SELECT resource_id, occurred_at, details FROM audit_events
     WHERE kind = 'lifecycle' AND resource_kind = 'namespace' AND resource_id = $1
     ORDER BY occurred_at, id`,
    [id],
  );
  return res.rows;
}

/** The Namespace's placement work item (`namespace:<id>:ready`). */
async function workRow(id: string) {
  const res = await plane.db.query<{
    id: string;
    state: string;
    claimed_by: string | null;
    attempt_count: number;
    lease_expires_at: Date | null;
  }>(
    `SELECT id, state, claimed_by, attempt_count, lease_expires_at FROM work_items
     WHERE idempotency_key = $1`,
    [`namespace:${id}:ready`],
  );
  return res.rows[0];
}

async function createNamespace(name: string, api = 0): Promise<string> {
  const res = await callApi({ ...plane, apiUrl: plane.apiUrls[api] ?? "" }, "POST", "/namespaces", {
    name,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body as { data: { id: string } }).data.id;
}

const statusOf = async (id: string, api = 0) =>
  (
    (await callApi({ ...plane, apiUrl: plane.apiUrls[api] ?? "" }, "GET", `/namespaces/${id}`))
      .body as { data?: { status: string } }
  ).data?.status;

/** Grants the worker in the managed namespace once it exists, then waits for ready. */
async function grantAndWaitReady(id: string): Promise<void> {
  const ns = currentManagedName(id);
  await eventually(`${ns} created`, async () => (await readNamespace(ns)) !== undefined, 90_000);
  await bindTenantRole(ns, "occ-worker");
  await eventually(`${id} ready`, async () => (await statusOf(id)) === "ready", 90_000);
}

/** The namespaces the API server holds for tenant `id` (exactly one when nothing duplicated). */
async function claimants(id: string): Promise<string[]> {
  const found = await admin.list("Namespace", {
    labelSelector: `${LABELS.namespace}=${id}`,
  });
  return found.map((n) => n.metadata.name);
}

/** Waits until worker A is inside the pass of `id`: holding its claim, its create held. */
async function untilAHoldsTheClaim(id: string) {
  await eventually(
    `worker A holds ${id} with its namespace creation in flight`,
    async () =>
      (await workRow(id))?.claimed_by === owner(A) &&
      proxy.seen.some((r) => isNamespaceCreate(r.method, r.path) && r.body.includes(id)),
    60_000,
  );
  const row = await workRow(id);
  if (row?.lease_expires_at == null) throw new Error(`no claimed work item for ${id}`);
  return { id: row.id, leaseExpiresAt: row.lease_expires_at };
}

/** Every "work pass finished" line worker `index` logged for `subject`. */
function passesOf(index: number, subject: string): { result?: string; workItem?: string }[] {
  return (plane.workers[index]?.output ?? [])
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { msg?: string; subject?: string; result?: string })
    .filter((l) => l.msg === "work pass finished" && l.subject === subject);
}

beforeAll(async () => {
  await grantChartClusterRoles();
  proxy = await startFaultProxy((req) =>
    hold !== null && isNamespaceCreate(req.method, req.path)
      ? { action: "pass", before: () => hold?.promise ?? Promise.resolve() }
      : { action: "pass" },
  );
  const dir = process.env.TMPDIR ?? "/tmp";
  const viaProxy = join(dir, `occ-ha-proxy-${process.pid}.kubeconfig`);
  await writeFile(viaProxy, proxy.kubeConfig("occ-worker").exportConfig());
  // Worker A (index 0) goes through the proxy; B is added by the tests.
  plane = await startControlPlane({
    apis: 2,
    workers: 1,
    workerKubeconfigs: [viaProxy],
    workerConfig: { leaseSeconds: LEASE_SECONDS, concurrency: 2 },
  });
}, 180_000);

/** A failed test leaves no worker frozen and no request held for the next one. */
afterEach(() => {
  hold?.release();
  hold = null;
  for (const w of plane.workers) {
    if (w.running()) process.kill(w.pid, "SIGCONT");
  }
});

afterAll(async () => {
  await plane.stop();
  await proxy.close();
});

describe("two workers: leases and fenced outcomes", () => {
  it("a worker frozen mid-pass: the other takes the work over after the lease; the frozen one publishes nothing", async () => {
    hold = newHold();
    const id = await createNamespace("ha-frozen");
    const held = await untilAHoldsTheClaim(id);
    process.kill(plane.workers[A]?.pid ?? 0, "SIGSTOP");
    await plane.startWorker(B);
    // B may claim it only once A's lease expired (one claim per lane, fenced by the lease).
    // B's pass without its grant is short (pending, retried later), so the claim is seen
    // either while B holds it or in the pass B logged for it afterwards.
    let seen: Awaited<ReturnType<typeof workRow>>;
    await eventually(
      () =>
        `worker B claimed the work (last row: ${JSON.stringify(seen)}; B's last lines: ` +
        `${(plane.workers[B]?.output ?? []).slice(-5).join(" | ")})`,
      async () => {
        seen = await workRow(id);
        return (
          seen?.claimed_by === owner(B) ||
          passesOf(B, `namespace:${id}`).some((p) => p.workItem === held.id)
        );
      },
      60_000,
    );
    await grantAndWaitReady(id);
    // Now let A go on: its held create is answered, its next statement finds its claim gone.
    hold.release();
    hold = null;
    process.kill(plane.workers[A]?.pid ?? 0, "SIGCONT");
    await eventually(
      "worker A's pass finished as stale",
      () => Promise.resolve(passesOf(A, `namespace:${id}`).some((p) => p.result === "stale")),
      60_000,
    );
    // A's pass of the claim it lost; later passes of the tenant (reconciles) are new claims.
    const lost = passesOf(A, `namespace:${id}`).filter((p) => p.workItem === held.id);
    expect(lost.map((p) => p.result)).toEqual(["stale"]);
    const events = await lifecycleEvents(id);
    // Every transition was settled by B's claim; none by A's (attempt 1, lost with its lease).
    expect(events.map((e) => e.details.worker)).toEqual(events.map(() => owner(B)));
    expect(events.every((e) => (e.details.attempt ?? 0) >= 2)).toBe(true);
    expect(events.every((e) => e.details.workItem === held.id)).toBe(true);
    // B's first settle came after A's lease expired: the claim needs an expired lease.
    expect(events[0]?.occurred_at.getTime()).toBeGreaterThanOrEqual(held.leaseExpiresAt.getTime());
    expect(events.filter((e) => e.details.to === "ready")).toHaveLength(1);
    expect(await claimants(id)).toEqual([currentManagedName(id)]);
    expect(await statusOf(id)).toBe("ready");
  });

  it("a worker SIGKILLed mid-pass: the other takes its work over once the lease expired", async () => {
    // Only A may claim the new work: B is frozen while it is queued and claimed.
    process.kill(plane.workers[B]?.pid ?? 0, "SIGSTOP");
    hold = newHold();
    const id = await createNamespace("ha-killed", 1);
    const held = await untilAHoldsTheClaim(id);
    await plane.killWorker(A);
    // A may have renewed its lease since `held` was read; dead, it renews no more, and B is
    // still frozen: this is the expiry B's claim has to wait for.
    const expiry = (await workRow(id))?.lease_expires_at?.getTime() ?? 0;
    expect(expiry).toBeGreaterThanOrEqual(held.leaseExpiresAt.getTime());
    process.kill(plane.workers[B]?.pid ?? 0, "SIGCONT");
    hold.release();
    hold = null;
    await grantAndWaitReady(id);
    const events = await lifecycleEvents(id);
    // B settled its first pass after A's lease expired (its claim needed that), and took the
    // work over within the lease time: it wakes for the earliest lease expiry, not on a poll.
    const first = events[0]?.occurred_at.getTime() ?? 0;
    expect(first).toBeGreaterThanOrEqual(expiry);
    expect(first - expiry).toBeLessThan(LEASE_SECONDS * 1000 + 10_000);
    expect(events.every((e) => e.details.workItem === held.id)).toBe(true);
    expect(events.map((e) => e.details.worker)).toEqual(events.map(() => owner(B)));
    expect(events.filter((e) => e.details.to === "ready")).toHaveLength(1);
    expect((await workRow(id))?.state).toBe("succeeded");
    // A's claim spent attempt 1 and died; B's claims came after it.
    expect(events.every((e) => (e.details.attempt ?? 0) >= 2)).toBe(true);
    expect(await claimants(id)).toEqual([currentManagedName(id)]);
  });

  it("many Namespaces through both APIs and both workers: one event per transition, one namespace per tenant, every item settled", async () => {
    await plane.startWorker(A);
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await createNamespace(`ha-many-${i}`, i % 2));
    await Promise.all(ids.map((id) => grantAndWaitReady(id)));
    const owners = new Set([owner(A), owner(B)]);
    for (const id of ids) {
      const events = await lifecycleEvents(id);
      const transitions = events.map((e) => `${e.details.from}→${e.details.to}`);
      // No transition applied twice (two holders would both have recorded it).
      expect(new Set(transitions).size, transitions.join(", ")).toBe(transitions.length);
      expect(transitions.filter((t) => t.endsWith("→ready"))).toEqual(["provisioning→ready"]);
      for (const e of events) expect(owners.has(e.details.worker ?? "")).toBe(true);
      expect(await claimants(id)).toEqual([currentManagedName(id)]);
    }
    // Every placement item settled as succeeded, each by one claim of one worker.
    for (const id of ids) {
      const row = await workRow(id);
      expect([row?.state, row?.claimed_by]).toEqual(["succeeded", null]);
    }
  });
});

describe("two API processes share nothing but the database", () => {
  it("a Namespace created through API A is read, listed and deleted through API B", async () => {
    const id = await createNamespace("ha-shared", 0);
    const viaB = { ...plane, apiUrl: plane.apiUrls[1] ?? "" };
    const read = await callApi(viaB, "GET", `/namespaces/${id}`);
    expect(read.status).toBe(200);
    expect((read.body as { data: { name: string } }).data.name).toBe("ha-shared");
    const listed = await callApi(viaB, "GET", "/namespaces?limit=100");
    expect((listed.body as { data: { id: string }[] }).data.map((n) => n.id)).toContain(id);
    await grantAndWaitReady(id);
    expect((await callApi(viaB, "DELETE", `/namespaces/${id}`)).status).toBe(202);
    // Both see the deletion through the one database, down to the tombstone.
    await eventually(
      `${id} gone through both APIs`,
      async () =>
        (await callApi(plane, "GET", `/namespaces/${id}`)).status === 404 &&
        (await callApi(viaB, "GET", `/namespaces/${id}`)).status === 404,
      90_000,
    );
    const afterA = await callApi(plane, "GET", "/namespaces?limit=100");
    expect((afterA.body as { data: { id: string }[] }).data.map((n) => n.id)).not.toContain(id);
    const row = await plane.db.query<{ deleted_at: Date | null }>(
      "SELECT deleted_at FROM namespaces WHERE id = $1",
      [id],
    );
    expect(row.rows[0]?.deleted_at).not.toBeNull();
  });
});
