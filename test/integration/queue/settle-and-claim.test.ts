/**
 * A completion that also makes the slot's next claim in its own statement (`complete`'s
 * `next`), on real PostgreSQL: what it claims, that a refused completion claims nothing, and
 * that a lane race rolls the pair back and completes alone.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createWorkQueue } from "../../../src/queue/index.js";
import { migratedDatabaseForFile } from "../../harness/db.js";

const t = await migratedDatabaseForFile({ max: 10 });

/**
 * A queue of one kind (unique per test) with `subjects` queued in that order: a few
 * milliseconds apart, so that the claim order (`available_at`, stored to the millisecond, then
 * `created_at`, then the random ID) is the enqueue order.
 */
async function queueOf(kind: string, subjects: readonly string[], leaseMs = 30_000) {
  const queue = createWorkQueue({ kinds: [kind], policy: { leaseMs } });
  for (const [i, subject] of subjects.entries()) {
    await queue.enqueue(t.db, { kind, subject, key: `${kind}:${String(i)}`, actor: "prn_x" });
    await new Promise((r) => setTimeout(r, 5));
  }
  return queue;
}

async function rowOf(id: string) {
  const res = await t.db.query<{ state: string; claim_token: string | null; claimed_by: string }>(
    "SELECT state, claim_token, claimed_by FROM work_items WHERE id = $1",
    [id],
  );
  return res.rows[0];
}

async function statesOf(kind: string) {
  const res = await t.db.query<{ subject: string; state: string }>(
    "SELECT subject, state FROM work_items WHERE kind = $1 ORDER BY subject",
    [kind],
  );
  return res.rows;
}

describe("complete with the next claim", () => {
  it("completes the item and claims the oldest eligible one, with its own token and lease", async () => {
    const queue = await queueOf("chain.next", ["s1", "s2", "s3"]);
    const first = await queue.claim(t.db, { owner: "w1" });
    if (first === null) throw new Error("expected a claim");

    const done = await queue.complete(t.db, first.lease, undefined, [], { owner: "w1" });
    if (done.outcome !== "applied") throw new Error("expected the completion to apply");
    expect(done.item.state).toBe("succeeded");
    const next = done.next;
    if (next === undefined || next === null) throw new Error("expected a next claim");
    expect(next.item).toMatchObject({ subject: "s2", state: "claimed", attemptCount: 1 });
    expect(next.lease.token).not.toBe(first.lease.token);
    expect(next.lease.expiresAt.getTime()).toBeGreaterThan(Date.now());

    // Read back: the first finished, the second held by w1 under the returned token.
    expect(await rowOf(first.item.id)).toEqual({
      state: "succeeded",
      claim_token: null,
      claimed_by: null,
    });
    expect(await rowOf(next.item.id)).toEqual({
      state: "claimed",
      claim_token: next.lease.token,
      claimed_by: "w1",
    });
    // The chained claim is an ordinary one: its holder completes it.
    const again = await queue.complete(t.db, next.lease);
    expect(again.outcome === "applied" && again.item.state).toBe("succeeded");
    expect(await statesOf("chain.next")).toEqual([
      { subject: "s1", state: "succeeded" },
      { subject: "s2", state: "succeeded" },
      { subject: "s3", state: "queued" },
    ]);
  });

  it("returns null for the next claim when nothing is eligible, and absent when none was asked", async () => {
    const queue = await queueOf("chain.empty", ["only", "other"]);
    const first = await queue.claim(t.db, { owner: "w1" });
    const second = await queue.claim(t.db, { owner: "w2" });
    if (first === null || second === null) throw new Error("expected two claims");

    const done = await queue.complete(t.db, first.lease, undefined, [], { owner: "w1" });
    expect(done.outcome === "applied" && done.next).toBeNull();
    const plain = await queue.complete(t.db, second.lease);
    expect(plain.outcome === "applied" && "next" in plain).toBe(false);
  });

  it("claims nothing when the completion is refused (stale lease)", async () => {
    const queue = await queueOf("chain.stale", ["a", "b"]);
    const first = await queue.claim(t.db, { owner: "w1" });
    if (first === null) throw new Error("expected a claim");
    const forged = { ...first.lease, token: "00000000-0000-4000-8000-000000000000" };

    const res = await queue.complete(t.db, forged, undefined, [], { owner: "w1" });
    expect(res).toEqual({ outcome: "stale", why: "claimed_elsewhere" });
    expect(await statesOf("chain.stale")).toEqual([
      { subject: "a", state: "claimed" },
      { subject: "b", state: "queued" },
    ]);
  });

  it("passes over a lane another claim holds, and other kinds", async () => {
    const queue = await queueOf("chain.lanes", ["busy", "mine", "busy", "free"]);
    const other = createWorkQueue({ kinds: ["chain.other"] });
    await other.enqueue(t.db, {
      kind: "chain.other",
      subject: "x",
      key: "chain.other:0",
      actor: "p",
    });
    const held = await queue.claim(t.db, { owner: "elsewhere" }); // the first "busy" item
    const mine = await queue.claim(t.db, { owner: "w1" }); // "mine"
    if (held === null || mine === null) throw new Error("expected two claims");
    expect([held.item.subject, mine.item.subject]).toEqual(["busy", "mine"]);

    const done = await queue.complete(t.db, mine.lease, undefined, [], { owner: "w1" });
    // The second "busy" item waits behind its lane's claim; "free" is next; chain.other is not
    // this queue's kind.
    expect(done.outcome === "applied" && done.next?.item.subject).toBe("free");
    const others = await t.db.query("SELECT state FROM work_items WHERE kind = 'chain.other'");
    expect(others.rows).toEqual([{ state: "queued" }]);
  });

  it("completes alone when another claimer takes the chosen lane first (the pair rolls back)", async () => {
    const queue = await queueOf("chain.race", ["done-lane", "raced", "raced"]);
    const first = await queue.claim(t.db, { owner: "w1" });
    if (first === null) throw new Error("expected a claim");
    const oldestRaced = await t.db.query<{ id: string }>(
      "SELECT id FROM work_items WHERE kind = 'chain.race' AND subject = 'raced' ORDER BY created_at, id",
    );
    const [chosen, taken] = oldestRaced.rows.map((r) => r.id);

    // Another worker claims the lane's second item in a transaction it has not committed yet:
    // the chained claim cannot see it, picks the lane's first item, and its unique-lane insert
    // waits for that transaction.
    const rival = new pg.Client({ connectionString: t.url });
    await rival.connect();
    try {
      await rival.query("BEGIN");
      await rival.query(
        `UPDATE work_items SET state = 'claimed', claim_token = gen_random_uuid(),
           claimed_by = 'rival', lease_expires_at = now() + interval '1 minute',
           attempt_count = attempt_count + 1
         WHERE id = $1`,
        [taken],
      );
      const pending = queue.complete(t.db, first.lease, undefined, [], { owner: "w1" });
      await waitForLockWait();
      await rival.query("COMMIT");
      const done = await pending;

      if (done.outcome !== "applied") throw new Error("expected the completion to apply");
      expect(done.item.state).toBe("succeeded");
      expect("next" in done).toBe(false);
      expect(await rowOf(first.item.id)).toMatchObject({ state: "succeeded" });
      expect(await rowOf(chosen ?? "")).toMatchObject({ state: "queued", claimed_by: null });
      expect(await rowOf(taken ?? "")).toMatchObject({ state: "claimed", claimed_by: "rival" });
    } finally {
      await rival.end();
    }
  });
});

/** Until some backend of this database waits for a transaction lock (the chained claim). */
async function waitForLockWait(): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    const res = await t.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (Number(res.rows[0]?.n ?? 0) > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the chained claim never waited for the rival's lane");
}
