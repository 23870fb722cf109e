/**
 * The settle that claims the slot's next work (queue/transitions.ts), seen through the real
 * processes: one `occ worker` with a single slot finds work queued while it was down, claims
 * the first item itself, and every pass's settle claims the next — as its metrics count and as
 * the queue's rows show (each item claimed once, by that worker).
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../../harness/kube.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { prepareExternal } from "../compute/fixtures.js";
import { controlPlaneForFile, type ControlPlane } from "./control-plane.js";
import { callApi } from "../../harness/api.js";

let plane: ControlPlane;

controlPlaneForFile({ workerConfig: { concurrency: 1 } }, (started) => {
  plane = started;
});

/** A counter's value on the worker's /metrics, or NaN when the series is absent. */
function counter(metrics: string, series: string): number {
  const line = metrics.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

describe("one worker slot, work queued while the worker was down", () => {
  it("claims the first item itself; each settle claims the next (occ_work_claims_total{how=chained})", async () => {
    // External namespaces the worker may already write to, so every pass ends ready.
    const selected: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const name = (await prepareExternal()).metadata?.name ?? "";
      await bindTenantRole(name, "occ-worker");
      selected.push(name);
    }
    await plane.killWorker();
    const ids: string[] = [];
    for (const [i, existingNamespace] of selected.entries()) {
      const res = await callApi(plane, "POST", "/namespaces", {
        name: `chain-${String(i)}`,
        existingNamespace,
      });
      expect(res.status).toBe(201);
      ids.push((res.body as { data: { id: string } }).data.id);
    }
    await plane.startWorker();

    const statuses = async () =>
      Promise.all(
        ids.map(async (id) => {
          const res = await callApi(plane, "GET", `/namespaces/${id}`);
          return (res.body as { data: { status: string } }).data.status;
        }),
      );
    let last: string[] = [];
    await eventually(
      () => `all four ready (last: ${last.join(", ")})`,
      async () => {
        last = await statuses();
        return last.every((s) => s === "ready");
      },
    );

    const metrics = await (await fetch(plane.workerMetricsUrl)).text();
    // One slot: the first item by a claim of its own, the three behind it by the settles.
    expect(counter(metrics, 'occ_work_claims_total{how="chained"}')).toBeGreaterThanOrEqual(3);
    expect(counter(metrics, 'occ_work_claims_total{how="claimed"}')).toBeGreaterThanOrEqual(1);

    // Read back from the queue: each create's work succeeded on its one claim. (Passes the
    // watches ask for later are other rows, under the reconcile keys.)
    const rows = await plane.db.query<{ state: string; attempts: number }>(
      `SELECT state, attempt_count AS attempts FROM work_items
       WHERE idempotency_key = ANY($1::text[])`,
      [ids.map((id) => `namespace:${id}:ready`)],
    );
    expect(rows.rows).toHaveLength(4);
    for (const row of rows.rows) {
      expect(row).toMatchObject({ state: "succeeded", attempts: 1 });
    }
  });
});
