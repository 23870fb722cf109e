/**
 * A claim racing a requeue of an ended item (bench P9: the worker's resync requeues succeeded
 * `namespace.ensure` items 4 at a time while its slots claim). The claim must either take the
 * requeued row as new or pass it over — never write `claimed` over the ended row it read first
 * (which PostgreSQL refuses with `work_items_finished_consistent`).
 */
import { describe, expect, it } from "vitest";
import { createWorkQueue } from "../../../src/queue/index.js";
import { requeueEnsureWork } from "../../../src/work/namespace-pass-request.js";
import { migratedDatabaseForFile } from "../../harness/db.js";

const CLAIMERS = 6;
const REQUEUERS = 4;
const SUBJECTS = 150;
const ROUNDS = 4;

const t = await migratedDatabaseForFile({ max: CLAIMERS + REQUEUERS + 4 });

describe("claim racing a requeue", () => {
  it("claimers never fail while ended items are requeued under them", async () => {
    const queue = createWorkQueue({ kinds: ["namespace.ensure"] });
    const keys = Array.from({ length: SUBJECTS }, (_, i) => ({
      key: `race:${i}:reconcile:a`,
      subject: `race:${i}`,
      actor: "system:reconciler",
    }));
    const errors: string[] = [];
    let claimed = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      let requeued = 0;
      let next = 0;
      const requeuers = Array.from({ length: REQUEUERS }, async () => {
        for (let k = keys[next++]; k !== undefined; k = keys[next++]) {
          if ((await requeueEnsureWork(t.db, queue, k)) !== null) requeued += 1;
        }
      });
      let stop = false;
      const claimers = Array.from({ length: CLAIMERS }, async (_, i) => {
        while (!stop) {
          try {
            const c = await queue.claim(t.db, { owner: `claimer-${i}` });
            if (c === null) {
              await new Promise((r) => setImmediate(r));
              continue;
            }
            claimed += 1;
            await queue.complete(t.db, c.lease);
          } catch (err) {
            errors.push(err instanceof Error ? err.message : String(err));
          }
        }
      });
      await Promise.all(requeuers);
      expect(requeued).toBe(SUBJECTS);
      // Drain what is left, then stop the claimers.
      for (;;) {
        const open = await t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM work_items WHERE state IN ('queued', 'claimed')",
        );
        if (open.rows[0]?.n === 0) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      stop = true;
      await Promise.all(claimers);
    }
    expect(errors).toEqual([]);
    expect(claimed).toBe(SUBJECTS * ROUNDS);
  });
});
