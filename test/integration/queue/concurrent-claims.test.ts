/**
 * The queue's concurrency guarantees on real PostgreSQL: many claimers over many lanes process
 * every item exactly once and never hold two claims of one lane at the same time.
 */
import { describe, expect, it } from "vitest";
import { createWorkQueue } from "../../../src/queue/index.js";
import { migratedDatabaseForFile } from "../../harness/db.js";
import { sleep } from "../../harness/time.js";

const CLAIMERS = 8;
const SUBJECTS = 20;
const PER_SUBJECT = 10;
const TOTAL = SUBJECTS * PER_SUBJECT;

const t = await migratedDatabaseForFile({ max: CLAIMERS * 2 + 4 });

describe("concurrent claimers", () => {
  it(`${CLAIMERS} claimers over ${TOTAL} items in ${SUBJECTS} lanes: each item once, lanes never overlap`, async () => {
    const queue = createWorkQueue({ kinds: ["job.run"] });
    // Lane-major order: the oldest items all share a lane, so claimers race for the same lane
    // (the path where the partial unique index decides) rather than spreading out by luck.
    for (let s = 0; s < SUBJECTS; s += 1) {
      for (let i = 0; i < PER_SUBJECT; i += 1) {
        await queue.enqueue(t.db, {
          kind: "job.run",
          subject: `lane-${s}`,
          key: `job:${s}:${i}`,
          actor: "prn_x",
        });
      }
    }

    const processed = new Map<string, number>();
    const activeLanes = new Set<string>();
    const overlaps: string[] = [];
    let peak = 0;
    let done = 0;

    const claimer = async (name: string): Promise<void> => {
      while (done < TOTAL) {
        const c = await queue.claim(t.db, { owner: name });
        if (c === null) {
          await sleep(2);
          continue;
        }
        const lane = c.item.subject;
        if (activeLanes.has(lane)) overlaps.push(lane);
        activeLanes.add(lane);
        peak = Math.max(peak, activeLanes.size);
        processed.set(c.item.id, (processed.get(c.item.id) ?? 0) + 1);
        await sleep(Math.random() * 4);
        // Leave the lane before publishing: the database frees it at commit, never earlier.
        activeLanes.delete(lane);
        const res = await queue.complete(t.db, c.lease);
        if (res.outcome !== "applied") throw new Error(`completion refused: ${res.why}`);
        done += 1;
      }
    };
    await Promise.all(Array.from({ length: CLAIMERS }, (_, i) => claimer(`claimer-${i}`)));

    expect(overlaps).toEqual([]);
    expect(processed.size).toBe(TOTAL);
    expect([...processed.values()].every((n) => n === 1)).toBe(true);
    expect(peak).toBeGreaterThan(1);
    const rows = await t.db.query<{ state: string; attempts: number; n: number }>(
      `SELECT state, attempt_count AS attempts, count(*)::int AS n
       FROM work_items GROUP BY state, attempt_count`,
    );
    expect(rows.rows).toEqual([{ state: "succeeded", attempts: 1, n: TOTAL }]);
  });

  it("two claimers started together on two items of one free lane: only one claim exists", async () => {
    const queue = createWorkQueue({ kinds: ["race.run"] });
    for (let round = 0; round < 25; round += 1) {
      const lane = `race-${round}`;
      await queue.enqueue(t.db, { kind: "race.run", subject: lane, key: `${lane}:a`, actor: "p" });
      await queue.enqueue(t.db, { kind: "race.run", subject: lane, key: `${lane}:b`, actor: "p" });
      const claims = await Promise.all([
        queue.claim(t.db, { owner: "a" }),
        queue.claim(t.db, { owner: "b" }),
        queue.claim(t.db, { owner: "c" }),
      ]);
      expect(claims.filter((c) => c !== null)).toHaveLength(1);
      const held = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM work_items WHERE subject = $1 AND state = 'claimed'",
        [lane],
      );
      expect(held.rows[0]?.n).toBe(1);
      // Each completion must apply: a refused one (stale) would leave the lane busy, and the
      // second claim below would then find nothing for a reason other than the claim's.
      for (const c of claims) {
        if (c !== null) expect((await queue.complete(t.db, c.lease)).outcome).toBe("applied");
      }
      const second = await queue.claim(t.db, { owner: "a" });
      if (second === null) {
        // Seen once in CI (2026-12-06, round 2), not reproduced in 1,500 rounds on loaded cores:
        // the failure carries the lane's rows and the database's clock, to tell why.
        const rows = await t.db.query(
          `SELECT idempotency_key, state, available_at, lease_expires_at, attempt_count,
                  statement_timestamp() AS now
           FROM work_items WHERE subject = $1 ORDER BY idempotency_key`,
          [lane],
        );
        expect.fail(`round ${String(round)}: nothing claimable: ${JSON.stringify(rows.rows)}`);
      }
      expect(second.item.subject).toBe(lane);
      expect((await queue.complete(t.db, second.lease)).outcome).toBe("applied");
    }
  });
});
