import { describe, expect, it } from "vitest";
import { createWorkQueue, isExhausted, type WorkQueue } from "../../../src/queue/index.js";
import { ManualClock, migratedPgliteForFile, unique } from "../../harness/pglite.js";

const db = await migratedPgliteForFile();

interface Setup {
  queue: WorkQueue<string>;
  clock: ManualClock;
  kind: string;
  add(subject: string, opts?: { kind?: string; maxAttempts?: number }): Promise<string>;
}

function setup(kinds = 1): Setup {
  const names = Array.from({ length: kinds }, () => unique("clm"));
  const kind = names[0] ?? "";
  const clock = new ManualClock();
  const queue = createWorkQueue({
    kinds: names,
    clock,
    random: () => 0,
    policy: { leaseMs: 10_000 },
  });
  return {
    queue,
    clock,
    kind,
    async add(subject, opts = {}) {
      const res = await queue.enqueue(db, {
        kind: opts.kind ?? kind,
        subject,
        key: unique("key"),
        actor: "prn_x",
        ...(opts.maxAttempts === undefined ? {} : { maxAttempts: opts.maxAttempts }),
      });
      if (res.outcome !== "created") throw new Error("expected a new item");
      clock.advance(1); // distinct available_at, so age order is the insertion order
      return res.item.id;
    },
  };
}

describe("claim", () => {
  it("returns null when nothing is queued", async () => {
    expect(await setup().queue.claim(db, { owner: "w" })).toBeNull();
  });

  it("takes the oldest item, spends an attempt and sets a lease", async () => {
    const s = setup();
    const first = await s.add(unique("subj"));
    await s.add(unique("subj"));
    const c = await s.queue.claim(db, { owner: "worker-1" });
    expect(c?.item).toMatchObject({
      id: first,
      state: "claimed",
      attemptCount: 1,
      claimedBy: "worker-1",
      leaseExpiresAt: s.clock.plus(10_000),
    });
    expect(c?.lease).toMatchObject({ itemId: first, attempt: 1, pendingCount: 0 });
    expect(c?.lease.expiresAt).toEqual(s.clock.plus(10_000));
  });

  it("never claims a second item of a lane while one is claimed", async () => {
    const s = setup();
    const lane = unique("lane");
    const a1 = await s.add(lane);
    const a2 = await s.add(lane);
    const b1 = await s.add(unique("lane"));

    const first = await s.queue.claim(db, { owner: "w" });
    const second = await s.queue.claim(db, { owner: "w" });
    const third = await s.queue.claim(db, { owner: "w" });
    expect([first?.item.id, second?.item.id, third]).toEqual([a1, b1, null]);

    if (first === null) throw new Error("expected a claim");
    await s.queue.complete(db, first.lease);
    expect((await s.queue.claim(db, { owner: "w" }))?.item.id).toBe(a2);
  });

  it("keeps a lane across kinds: another kind's claim on the subject blocks it", async () => {
    const s = setup(2);
    const other = s.queue.kinds[1] ?? "";
    const lane = unique("lane");
    await s.add(lane);
    await s.add(lane, { kind: other });
    expect(await s.queue.claim(db, { owner: "w" })).not.toBeNull();
    expect(await s.queue.claim(db, { owner: "w", kinds: [other] })).toBeNull();
  });

  it("claims only the kinds asked for", async () => {
    const s = setup(2);
    const other = s.queue.kinds[1] ?? "";
    await s.add(unique("subj"));
    const wanted = await s.add(unique("subj"), { kind: other });
    expect((await s.queue.claim(db, { owner: "w", kinds: [other] }))?.item.id).toBe(wanted);
  });

  it("does not claim before available_at", async () => {
    const s = setup();
    await s.add(unique("subj"));
    const c = await s.queue.claim(db, { owner: "w" });
    if (c === null) throw new Error("expected a claim");
    await s.queue.retry(db, c.lease, { code: "KUBERNETES_API_UNAVAILABLE", message: "503" });
    expect(await s.queue.claim(db, { owner: "w" })).toBeNull();
    s.clock.advance(999);
    expect(await s.queue.claim(db, { owner: "w" })).toBeNull();
    s.clock.advance(1);
    expect(await s.queue.claim(db, { owner: "w" })).not.toBeNull();
  });

  it("reclaims an expired lease (the killed-worker case) with a new token and attempt", async () => {
    const s = setup();
    const id = await s.add(unique("subj"));
    const dead = await s.queue.claim(db, { owner: "killed" });
    s.clock.advance(9_999);
    expect(await s.queue.claim(db, { owner: "other" })).toBeNull();
    s.clock.advance(1);
    const taken = await s.queue.claim(db, { owner: "other" });
    expect(taken?.item).toMatchObject({ id, claimedBy: "other", attemptCount: 2 });
    expect(taken?.lease.token).not.toBe(dead?.lease.token);
    expect(taken === null ? true : isExhausted(taken)).toBe(false);
  });

  it("reclaims an expired lease before the lane's next item", async () => {
    const s = setup();
    const lane = unique("lane");
    const first = await s.add(lane);
    await s.add(lane);
    await s.queue.claim(db, { owner: "killed" });
    s.clock.advance(10_000);
    expect((await s.queue.claim(db, { owner: "w" }))?.item.id).toBe(first);
  });

  it("flags a reclaim past the attempt budget as exhausted", async () => {
    const s = setup();
    await s.add(unique("subj"), { maxAttempts: 1 });
    await s.queue.claim(db, { owner: "killed" });
    s.clock.advance(10_000);
    const again = await s.queue.claim(db, { owner: "w" });
    expect(again?.lease.attempt).toBe(2);
    expect(again === null ? false : isExhausted(again)).toBe(true);
  });
});

describe("nextWakeAt", () => {
  it("is the earliest available_at or lease expiry, or null with no open work", async () => {
    const s = setup();
    expect(await s.queue.nextWakeAt(db)).toBeNull();
    await s.add(unique("subj"));
    const start = s.clock.now();
    const c = await s.queue.claim(db, { owner: "w" });
    expect(await s.queue.nextWakeAt(db)).toEqual(new Date(start.getTime() + 10_000));
    if (c === null) throw new Error("expected a claim");
    await s.queue.defer(db, c.lease, { code: "KUBERNETES_PERMISSION_PENDING", message: "wait" });
    expect(await s.queue.nextWakeAt(db)).toEqual(new Date(start.getTime() + 1_000));
    const again = await s.queue.claim(db, { owner: "w" });
    expect(again).toBeNull();
  });

  it("ignores queued items behind a claimed one: the lease expiry is when that lane may move", async () => {
    const s = setup();
    const lane = unique("lane");
    await s.add(lane);
    await s.add(lane);
    const start = s.clock.now();
    await s.queue.claim(db, { owner: "w" });
    s.clock.advance(5_000);
    expect(await s.queue.nextWakeAt(db)).toEqual(new Date(start.getTime() + 10_000));
  });
});

describe("queue depth", () => {
  it("counts queued, ready, claimed and expired leases per kind, with the oldest ready age", async () => {
    const s = setup(2);
    const idle = s.queue.kinds[1] ?? "";
    await s.add(unique("subj"));
    await s.add(unique("subj"));
    await s.add(unique("subj"));
    const c = await s.queue.claim(db, { owner: "w" }); // the oldest
    if (c === null) throw new Error("expected a claim");
    const c2 = await s.queue.claim(db, { owner: "w" });
    if (c2 === null) throw new Error("expected a claim");
    await s.queue.retry(db, c2.lease, { code: "KUBERNETES_CONFLICT", message: "409" });
    s.clock.advance(500);
    // One claimed, one queued for later (retry in 1 s), one ready since 3 ms + 500 ms ago.
    expect(await s.queue.depth(db)).toEqual([
      { kind: s.kind, queued: 2, ready: 1, claimed: 1, expiredLeases: 0, oldestReadyAgeMs: 501 },
      { kind: idle, queued: 0, ready: 0, claimed: 0, expiredLeases: 0, oldestReadyAgeMs: 0 },
    ]);
    s.clock.advance(10_000);
    const [mine] = await s.queue.depth(db);
    expect(mine).toMatchObject({ queued: 2, ready: 2, claimed: 1, expiredLeases: 1 });
  });
});
