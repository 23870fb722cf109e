/**
 * The worker process's watches (lifecycle.md §1), end to end: `occ api` and `occ worker` as
 * processes on the shared cluster. A change to a watched object in one tenant's namespace
 * queues exactly that tenant's pass (a reconcile work item for it, none for its neighbour),
 * and the worker reports its caches and watch-driven passes on /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentManagedName } from "../../../src/domain/index.js";
import { reconcileWorkKeys } from "../../../src/main/namespace-pass-request.js";
import type { NamespaceId } from "../../../src/domain/placement/ids.js";
import { eventually } from "../../harness/kube.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import { admin } from "../compute/fixtures.js";
import { callApi, startControlPlane, type ControlPlane } from "./control-plane.js";
import pg from "pg";

let plane: ControlPlane;
let db: pg.Client;

beforeAll(async () => {
  await grantChartClusterRoles();
  plane = await startControlPlane();
  const url = plane.common[plane.common.indexOf("--database-url") + 1] ?? "";
  db = new pg.Client({ connectionString: url });
  await db.connect();
}, 120_000);

afterAll(async () => {
  await db.end();
  await plane.stop();
});

async function readyTenant(name: string): Promise<NamespaceId> {
  const res = await callApi(plane, "POST", "/namespaces", { name });
  expect(res.status).toBe(201);
  const id = (res.body as { data: { id: NamespaceId } }).data.id;
  const k8s = currentManagedName(id);
  await eventually(
    `${k8s} created`,
    async () => (await admin.find("Namespace", { name: k8s })) !== undefined,
  );
  await bindTenantRole(k8s, "occ-worker");
  await eventually(`${name} ready`, async () => {
    const r = await callApi(plane, "GET", `/namespaces/${id}`);
    return (r.body as { data: { status: string } }).data.status === "ready";
  });
  return id;
}

/**
 * When the tenant's reconcile work was last (re)queued: its two alternating rows are requeued
 * in place, so a new request shows as a later `updated_at`, not as a new row.
 */
async function lastRequested(id: NamespaceId): Promise<number> {
  const res = await db.query<{ at: Date | null }>(
    "SELECT max(updated_at) AS at FROM work_items WHERE idempotency_key = ANY($1)",
    [reconcileWorkKeys(id)],
  );
  return res.rows[0]?.at?.getTime() ?? 0;
}

async function metric(name: string): Promise<string[]> {
  const text = await (await fetch(plane.workerMetricsUrl)).text();
  return text.split("\n").filter((l) => l.startsWith(name));
}

describe("worker watches, through the occ worker process", () => {
  it("a deleted owned NetworkPolicy queues exactly its tenant's pass", async () => {
    const [a, b] = [await readyTenant("watch-a"), await readyTenant("watch-b")];
    await eventually("the watch caches hold both tenants", async () =>
      (await metric('occ_watch_cache_objects{kind="Namespace"}')).some(
        (l) => Number(l.split(" ")[1]) >= 2,
      ),
    );
    // The tenants' own placement (and the RoleBindings granted) were changes too: wait until
    // their passes are done and nothing more is queued before the change under test.
    let before = { a: -1, b: -1 };
    for (;;) {
      const now = { a: await lastRequested(a), b: await lastRequested(b) };
      if (now.a === before.a && now.b === before.b) break;
      before = now;
      await new Promise((r) => setTimeout(r, 2_000));
    }
    const ns = currentManagedName(a);
    const policy = await admin.get<{ metadata: { name: string; uid: string } }>("NetworkPolicy", {
      name: "default-deny",
      namespace: ns,
    });
    await admin.delete(
      "NetworkPolicy",
      { name: "default-deny", namespace: ns },
      {
        uid: policy.metadata.uid,
      },
    );
    await eventually(
      "a reconcile pass is queued for the tenant",
      async () => (await lastRequested(a)) > before.a,
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${plane.workerOutput.slice(-30).join("\n")}`);
    });
    expect(await lastRequested(b)).toBe(before.b);
    const requested = await metric("occ_watch_requested_passes_total");
    expect(requested.some((l) => Number(l.split(" ")[1]) >= 1)).toBe(true);
  });
});
