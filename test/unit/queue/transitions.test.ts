import { describe, expect, it } from "vitest";
import {
  createWorkQueue,
  type Claim,
  type WorkQueue,
  type WorkQueuePolicy,
} from "../../../src/queue/index.js";
import { ManualClock, migratedPgliteForFile, unique } from "../../harness/pglite.js";

const db = await migratedPgliteForFile();

const LEASE = 10_000;
const NOTE = { code: "KUBERNETES_API_UNAVAILABLE", message: "the API server answered 503" };
const PENDING = { code: "KUBERNETES_PERMISSION_PENDING", message: "grant the RoleBinding" };

interface Setup {
  queue: WorkQueue<string>;
  clock: ManualClock;
  claimOne(): Promise<Claim<string>>;
}

async function setup(policy: Partial<WorkQueuePolicy> = {}): Promise<Setup> {
  const kind = unique("trn");
  const clock = new ManualClock();
  const queue = createWorkQueue({
    kinds: [kind],
    clock,
    random: () => 0,
    policy: { leaseMs: LEASE, ...policy },
  });
  await queue.enqueue(db, { kind, subject: unique("subj"), key: unique("key"), actor: "prn_x" });
  return {
    queue,
    clock,
    async claimOne() {
      const c = await queue.claim(db, { owner: "w" });
      if (c === null) throw new Error("expected a claim");
      return c;
    },
  };
}

describe("outcome transitions (table)", () => {
  it.each([
    {
      name: "complete",
      run: (s: Setup, c: Claim<string>) => s.queue.complete(db, c.lease),
      expected: { state: "succeeded", attemptCount: 1, lastCode: null, finished: true },
      exhausted: null,
    },
    {
      name: "complete with a note (superseded)",
      run: (s: Setup, c: Claim<string>) =>
        s.queue.complete(db, c.lease, { code: "SUPERSEDED", message: "namespace moved on" }),
      expected: { state: "succeeded", attemptCount: 1, lastCode: "SUPERSEDED", finished: true },
      exhausted: null,
    },
    {
      name: "fail",
      run: (s: Setup, c: Claim<string>) => s.queue.fail(db, c.lease, NOTE),
      expected: { state: "failed_permanent", attemptCount: 1, lastCode: NOTE.code, finished: true },
      exhausted: null,
    },
    {
      name: "retry",
      run: (s: Setup, c: Claim<string>) => s.queue.retry(db, c.lease, NOTE),
      expected: { state: "queued", attemptCount: 1, lastCode: NOTE.code, finished: false },
      exhausted: null,
    },
    {
      name: "defer (pending refunds the attempt)",
      run: (s: Setup, c: Claim<string>) => s.queue.defer(db, c.lease, PENDING),
      expected: { state: "queued", attemptCount: 0, lastCode: PENDING.code, finished: false },
      exhausted: null,
    },
    {
      name: "release (shutdown refunds the attempt, keeps the note)",
      run: (s: Setup, c: Claim<string>) => s.queue.release(db, c.lease),
      expected: { state: "queued", attemptCount: 0, lastCode: null, finished: false },
      exhausted: null,
    },
  ])("$name", async ({ run, expected, exhausted }) => {
    const s = await setup();
    const c = await s.claimOne();
    const res = await run(s, c);
    if (res.outcome !== "applied") throw new Error(`refused: ${res.why}`);
    expect(res.exhausted).toBe(exhausted);
    expect(res.item).toMatchObject({
      state: expected.state,
      attemptCount: expected.attemptCount,
      lastCode: expected.lastCode,
      claimedBy: null,
      leaseExpiresAt: null,
      updatedAt: s.clock.now(),
    });
    expect(res.item.finishedAt).toEqual(expected.finished ? s.clock.now() : null);
  });
});

describe("retry", () => {
  it("backs off exponentially by attempt and fails permanently on the last attempt", async () => {
    const s = await setup({ maxAttempts: 3 });
    const seen: { state: string; availableInMs: number | null; attempt: number }[] = [];
    for (let i = 0; i < 3; i += 1) {
      const c = await s.claimOne();
      const res = await s.queue.retry(db, c.lease, NOTE);
      if (res.outcome !== "applied") throw new Error("refused");
      seen.push({
        state: res.item.state,
        availableInMs:
          res.item.state === "queued"
            ? res.item.availableAt.getTime() - s.clock.now().getTime()
            : null,
        attempt: res.item.attemptCount,
      });
      if (res.item.state === "failed_permanent") expect(res.exhausted).toBe("attempts");
      s.clock.advance(res.item.state === "queued" ? 60_000 : 0);
    }
    expect(seen).toEqual([
      { state: "queued", availableInMs: 1_000, attempt: 1 },
      { state: "queued", availableInMs: 2_000, attempt: 2 },
      { state: "failed_permanent", availableInMs: null, attempt: 3 },
    ]);
  });

  it("jitters with the injected randomness", async () => {
    const kind = unique("trn");
    const clock = new ManualClock();
    const queue = createWorkQueue({ kinds: [kind], clock, random: () => 0.5 });
    await queue.enqueue(db, { kind, subject: unique("s"), key: unique("k"), actor: "prn_x" });
    const c = await queue.claim(db, { owner: "w" });
    if (c === null) throw new Error("expected a claim");
    const res = await queue.retry(db, c.lease, NOTE);
    expect(res.outcome === "applied" && res.item.availableAt).toEqual(clock.plus(1_250));
  });

  it("never schedules past the deadline, and fails permanently once it has passed", async () => {
    const s = await setup({ convergenceMs: 1_500 });
    s.clock.advance(1_000);
    const first = await s.queue.retry(db, (await s.claimOne()).lease, NOTE);
    // 1 s of backoff would land at 2 s; the deadline is 1.5 s.
    expect(first.outcome === "applied" && first.item.availableAt).toEqual(s.clock.plus(500));
    s.clock.advance(500);
    const second = await s.queue.retry(db, (await s.claimOne()).lease, NOTE);
    expect(second.outcome === "applied" && second.item.state).toBe("failed_permanent");
    expect(second.outcome === "applied" && second.exhausted).toBe("deadline");
  });
});

describe("defer (pending)", () => {
  it("never spends attempts, however often it repeats, and backs off by pending count", async () => {
    const s = await setup({ maxAttempts: 2 });
    const delays: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const c = await s.claimOne();
      expect(c.lease.attempt).toBe(1);
      const res = await s.queue.defer(db, c.lease, PENDING);
      if (res.outcome !== "applied") throw new Error("refused");
      expect(res.item).toMatchObject({ state: "queued", attemptCount: 0, pendingCount: i + 1 });
      delays.push(res.item.availableAt.getTime() - s.clock.now().getTime());
      s.clock.advance(20_000);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it("resets the pending backoff after a retryable failure", async () => {
    const s = await setup();
    await s.queue.defer(db, (await s.claimOne()).lease, PENDING);
    s.clock.advance(60_000);
    await s.queue.defer(db, (await s.claimOne()).lease, PENDING);
    s.clock.advance(60_000);
    const res = await s.queue.retry(db, (await s.claimOne()).lease, NOTE);
    expect(res.outcome === "applied" && res.item.pendingCount).toBe(0);
  });

  it("fails permanently once pending outlives the convergence deadline", async () => {
    const s = await setup({ convergenceMs: 60_000 });
    let last = await s.queue.defer(db, (await s.claimOne()).lease, PENDING);
    while (last.outcome === "applied" && last.item.state === "queued") {
      s.clock.advance(10_000);
      last = await s.queue.defer(db, (await s.claimOne()).lease, PENDING);
    }
    if (last.outcome !== "applied") throw new Error("refused");
    expect(last.item).toMatchObject({ state: "failed_permanent", attemptCount: 0 });
    expect(last.exhausted).toBe("deadline");
    expect(s.clock.now().getTime()).toBeGreaterThanOrEqual(last.item.deadlineAt.getTime());
    expect(s.clock.now().getTime()).toBeLessThan(last.item.deadlineAt.getTime() + 10_000);
  });
});

describe("fencing", () => {
  it("refuses a second change after the first (not_claimed) and leaves the item as it was", async () => {
    const s = await setup();
    const c = await s.claimOne();
    await s.queue.complete(db, c.lease);
    expect(await s.queue.fail(db, c.lease, NOTE)).toEqual({ outcome: "stale", why: "not_claimed" });
    const again = await s.queue.enqueue(db, {
      kind: s.queue.kinds[0] ?? "",
      subject: c.item.subject,
      key: c.item.idempotencyKey,
      actor: "prn_x",
    });
    expect(again.outcome === "existing" && again.item.state).toBe("succeeded");
  });

  it("refuses every change once the lease expired, even before anyone reclaims", async () => {
    const s = await setup();
    const c = await s.claimOne();
    s.clock.advance(LEASE);
    for (const change of [
      () => s.queue.complete(db, c.lease),
      () => s.queue.retry(db, c.lease, NOTE),
      () => s.queue.defer(db, c.lease, PENDING),
      () => s.queue.fail(db, c.lease, NOTE),
      () => s.queue.release(db, c.lease),
      () => s.queue.renew(db, c.lease),
    ]) {
      expect(await change()).toEqual({ outcome: "stale", why: "lease_expired" });
    }
  });

  it("refuses the stalled holder after a reclaim, and accepts the new holder", async () => {
    const s = await setup();
    const stalled = await s.claimOne();
    s.clock.advance(LEASE + 1);
    const fresh = await s.claimOne();
    expect(await s.queue.complete(db, stalled.lease)).toEqual({
      outcome: "stale",
      why: "claimed_elsewhere",
    });
    const res = await s.queue.complete(db, fresh.lease);
    expect(res.outcome === "applied" && res.item.state).toBe("succeeded");
  });

  it("refuses a forged token and an unknown item", async () => {
    const s = await setup();
    const c = await s.claimOne();
    const forged = { ...c.lease, token: "00000000-0000-4000-8000-000000000000" };
    expect(await s.queue.complete(db, forged)).toEqual({
      outcome: "stale",
      why: "claimed_elsewhere",
    });
    const missing = { ...c.lease, itemId: "00000000-0000-4000-8000-000000000001" };
    expect(await s.queue.complete(db, missing)).toEqual({ outcome: "stale", why: "not_found" });
  });
});

describe("renew", () => {
  it("extends an unexpired lease from now, so the holder can keep working", async () => {
    const s = await setup();
    const c = await s.claimOne();
    s.clock.advance(LEASE - 1);
    const renewed = await s.queue.renew(db, c.lease);
    expect(renewed).toEqual({
      outcome: "renewed",
      lease: { ...c.lease, expiresAt: s.clock.plus(LEASE) },
    });
    s.clock.advance(LEASE - 1);
    expect(await s.queue.claim(db, { owner: "other" })).toBeNull();
    const res = await s.queue.complete(db, c.lease);
    expect(res.outcome).toBe("applied");
  });
});

describe("note length", () => {
  it("bounds a long message to 256 characters", async () => {
    const s = await setup();
    const c = await s.claimOne();
    const res = await s.queue.fail(db, c.lease, { code: "X", message: "é".repeat(400) });
    expect(res.outcome === "applied" && res.item.lastMessage?.length).toBe(256);
  });
});
