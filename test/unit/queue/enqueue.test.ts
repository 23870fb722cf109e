import { describe, expect, it } from "vitest";
import { createWorkQueue, type WorkQueue } from "../../../src/queue/index.js";
import { ManualClock, migratedPgliteForFile, unique } from "../../harness/pglite.js";

const db = await migratedPgliteForFile();

function setup(): { queue: WorkQueue<string>; clock: ManualClock; kind: string } {
  const kind = unique("enq");
  const clock = new ManualClock();
  return { queue: createWorkQueue({ kinds: [kind], clock, random: () => 0 }), clock, kind };
}

async function rowsWithKey(key: string): Promise<number> {
  const res = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM work_items WHERE idempotency_key = $1",
    [key],
  );
  return res.rows[0]?.n ?? -1;
}

describe("enqueue", () => {
  it("creates a queued item available now, with the policy's attempts and deadline", async () => {
    const { queue, clock, kind } = setup();
    const res = await queue.enqueue(db, {
      kind,
      subject: "ns_a",
      key: unique("key"),
      actor: "prn_x",
    });
    expect(res.outcome).toBe("created");
    if (res.outcome !== "created") return;
    expect(res.item).toMatchObject({
      kind,
      subject: "ns_a",
      actor: "prn_x",
      state: "queued",
      attemptCount: 0,
      pendingCount: 0,
      maxAttempts: 5,
      availableAt: clock.now(),
      createdAt: clock.now(),
      deadlineAt: clock.plus(15 * 60_000),
      claimedBy: null,
      leaseExpiresAt: null,
      finishedAt: null,
    });
  });

  it("is idempotent by key: a repeat returns the same row and stores nothing new", async () => {
    const { queue, kind } = setup();
    const input = { kind, subject: unique("subj"), key: unique("key"), actor: "prn_x" };
    const first = await queue.enqueue(db, input);
    const second = await queue.enqueue(db, input);
    expect(second.outcome).toBe("existing");
    if (first.outcome !== "created" || second.outcome !== "existing") return;
    expect(second.item.id).toBe(first.item.id);
    expect(await rowsWithKey(input.key)).toBe(1);
  });

  it("returns the existing row in whatever state it is (succeeded work is not redone)", async () => {
    const { queue, kind } = setup();
    const input = { kind, subject: unique("subj"), key: unique("key"), actor: "prn_x" };
    await queue.enqueue(db, input);
    const claimed = await queue.claim(db, { owner: "w" });
    if (claimed === null) throw new Error("expected a claim");
    await queue.complete(db, claimed.lease);
    const again = await queue.enqueue(db, input);
    expect(again.outcome === "existing" && again.item.state).toBe("succeeded");
  });

  it.each([
    ["subject", { subject: "other" }, ["subject"]],
    ["actor", { actor: "prn_other" }, ["actor"]],
    ["subject and actor", { subject: "other", actor: "prn_other" }, ["subject", "actor"]],
  ])("reports a reused key with a different %s as a conflict", async (_, change, differs) => {
    const { queue, kind } = setup();
    const input = { kind, subject: unique("subj"), key: unique("key"), actor: "prn_x" };
    const first = await queue.enqueue(db, input);
    const res = await queue.enqueue(db, { ...input, ...change });
    expect(res).toEqual({
      outcome: "conflict",
      existingId: first.outcome === "created" ? first.item.id : "?",
      differs,
    });
    expect(await rowsWithKey(input.key)).toBe(1);
  });

  it("reports a key held by another queue's kind as a conflict without decoding that row", async () => {
    const a = setup();
    const b = setup();
    const key = unique("key");
    await a.queue.enqueue(db, { kind: a.kind, subject: "s", key, actor: "prn_x" });
    const res = await b.queue.enqueue(db, { kind: b.kind, subject: "s", key, actor: "prn_x" });
    expect(res.outcome === "conflict" && res.differs).toEqual(["kind"]);
  });

  it("takes per-item overrides of the deadline and attempt budget", async () => {
    const { queue, clock, kind } = setup();
    const res = await queue.enqueue(db, {
      kind,
      subject: unique("subj"),
      key: unique("key"),
      actor: "prn_x",
      convergenceMs: 60_000,
      maxAttempts: 2,
    });
    expect(res.outcome === "created" && res.item).toMatchObject({
      deadlineAt: clock.plus(60_000),
      maxAttempts: 2,
    });
  });

  it("stores nothing when the caller's transaction rolls back", async () => {
    const { queue, kind } = setup();
    const key = unique("key");
    await expect(
      db.transaction(async (tx) => {
        await queue.enqueue(tx, { kind, subject: "s", key, actor: "prn_x" });
        throw new Error("the resource change failed");
      }),
    ).rejects.toThrow(/resource change failed/);
    expect(await rowsWithKey(key)).toBe(0);
  });
});

describe("reopen", () => {
  it("requeues a failed_permanent item with a fresh budget, deadline and the new actor", async () => {
    const { queue, clock, kind } = setup();
    const key = unique("key");
    await queue.enqueue(db, { kind, subject: unique("subj"), key, actor: "prn_first" });
    const c = await queue.claim(db, { owner: "w" });
    if (c === null) throw new Error("expected a claim");
    await queue.fail(db, c.lease, { code: "KUBERNETES_API_REJECTED", message: "no" });
    clock.advance(3_600_000);

    const res = await queue.reopen(db, { key, actor: "prn_second" });
    expect(res.outcome).toBe("reopened");
    expect(res.outcome === "reopened" && res.item).toMatchObject({
      state: "queued",
      actor: "prn_second",
      attemptCount: 0,
      pendingCount: 0,
      availableAt: clock.now(),
      deadlineAt: clock.plus(15 * 60_000),
      finishedAt: null,
      lastCode: "KUBERNETES_API_REJECTED",
    });
    expect((await queue.claim(db, { owner: "w" }))?.item.actor).toBe("prn_second");
  });

  it.each([
    ["queued", false],
    ["claimed", true],
  ])("leaves a %s item alone (not_failed)", async (state, claimFirst) => {
    const { queue, kind } = setup();
    const key = unique("key");
    await queue.enqueue(db, { kind, subject: unique("subj"), key, actor: "prn_x" });
    if (claimFirst) await queue.claim(db, { owner: "w" });
    const res = await queue.reopen(db, { key, actor: "prn_y" });
    expect(res.outcome === "not_failed" && res.item.state).toBe(state);
    expect(res.outcome === "not_failed" && res.item.actor).toBe("prn_x");
  });

  it("says not_found for an unknown key", async () => {
    const { queue } = setup();
    expect(await queue.reopen(db, { key: unique("nokey"), actor: "prn_x" })).toEqual({
      outcome: "not_found",
    });
  });
});

describe("createWorkQueue", () => {
  it.each([[[]], [["Bad"]], [["has space"]]])("refuses the kind list %j", (kinds) => {
    expect(() => createWorkQueue({ kinds })).toThrow(RangeError);
  });
});
