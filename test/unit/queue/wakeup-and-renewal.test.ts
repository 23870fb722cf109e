import { describe, expect, it } from "vitest";
import { createWorkQueue, listenForWork, WORK_CHANNEL } from "../../../src/queue/index.js";
import { migratedPgliteForFile, unique } from "../../harness/pglite.js";
import { sleep } from "../../harness/time.js";

const db = await migratedPgliteForFile();

type Queue = ReturnType<typeof createWorkQueue>;
type Signal = Awaited<ReturnType<typeof listenForWork>>;

/** Enqueues one item of `kind` under a fresh subject and key (through `q`, the database by default). */
const enqueueFresh = (queue: Queue, kind: string, q: Parameters<Queue["enqueue"]>[0] = db) =>
  queue.enqueue(q, { kind, subject: unique("s"), key: unique("k"), actor: "prn_x" });

/** Runs `body` with the signal, and closes it after. */
async function listening(opened: Promise<Signal>, body: (signal: Signal) => Promise<void>) {
  const signal = await opened;
  try {
    await body(signal);
  } finally {
    await signal.close();
  }
}

/** A queue of a fresh kind whose lease lasts `leaseMs`, and a claim of its one item. */
async function claimedItem(leaseMs: number) {
  const kind = unique("keep");
  const queue = createWorkQueue({ kinds: [kind], policy: { leaseMs } });
  await enqueueFresh(queue, kind);
  const c = await queue.claim(db, { owner: "w" });
  if (c === null) throw new Error("expected a claim");
  return { queue, c };
}

describe("listenForWork on PGlite (NOTIFY in-process)", () => {
  it("wakes a waiter when work is enqueued, and not for a rolled-back enqueue", async () => {
    const kind = unique("wake");
    const queue = createWorkQueue({ kinds: [kind] });
    await listening(listenForWork(db, { kinds: [kind] }), async (signal) => {
      const waiting = signal.wait(5_000);
      await enqueueFresh(queue, kind);
      expect(await waiting).toBe("notified");

      const quiet = signal.wait(300);
      await db
        .transaction(async (tx) => {
          await enqueueFresh(queue, kind, tx);
          throw new Error("roll back");
        })
        .catch(() => undefined);
      expect(await quiet).toBe("timeout");
    });
  });

  it("latches a notification that arrives between two waits", async () => {
    const kind = unique("wake");
    const queue = createWorkQueue({ kinds: [kind] });
    await listening(listenForWork(db), async (signal) => {
      await enqueueFresh(queue, kind);
      await sleep(20);
      expect(await signal.wait(1)).toBe("notified");
      expect(await signal.wait(50)).toBe("timeout");
    });
  });

  it("ignores kinds it does not watch, and does not wake for a repeated enqueue", async () => {
    const mine = unique("wake");
    const other = unique("wake");
    const queue = createWorkQueue({ kinds: [mine, other] });
    const key = unique("k");
    await queue.enqueue(db, { kind: mine, subject: "s1", key, actor: "prn_x" });
    await listening(listenForWork(db, { kinds: [mine] }), async (signal) => {
      const waiting = signal.wait(300);
      await queue.enqueue(db, { kind: other, subject: unique("s"), key: unique("k"), actor: "p" });
      await queue.enqueue(db, { kind: mine, subject: "s1", key, actor: "prn_x" });
      expect(await waiting).toBe("timeout");
    });
  });

  it("wakes one waiter per notification (the longest waiting); wakeAnother passes it on", async () => {
    const kind = unique("wake");
    const queue = createWorkQueue({ kinds: [kind] });
    await listening(listenForWork(db, { kinds: [kind] }), async (signal) => {
      const woken: string[] = [];
      const first = signal.wait(5_000).then((r) => woken.push(`first ${r}`));
      const second = signal.wait(5_000).then((r) => woken.push(`second ${r}`));
      await enqueueFresh(queue, kind);
      await first;
      await sleep(100);
      expect(woken).toEqual(["first notified"]);
      // The woken slot claimed something: one more slot looks.
      signal.wakeAnother();
      await second;
      expect(woken).toEqual(["first notified", "second notified"]);
      // With no one waiting, wakeAnother latches nothing.
      signal.wakeAnother();
      expect(await signal.wait(50)).toBe("timeout");
    });
  });

  it("resolves waits as aborted on abort and on close", async () => {
    const signal = await listenForWork(db);
    const ac = new AbortController();
    const aborted = signal.wait(5_000, ac.signal);
    ac.abort();
    expect(await aborted).toBe("aborted");
    const closing = signal.wait(5_000);
    await signal.close();
    expect(await closing).toBe("aborted");
  });

  it("refuses a channel name that would need quoting", async () => {
    await expect(db.listen("Bad-Name", { onNotify: () => undefined })).rejects.toThrow(
      /must match/,
    );
    expect(WORK_CHANNEL).toMatch(/^[a-z_]+$/);
  });
});

describe("keepAlive (database clock, real time)", () => {
  it("keeps a short lease alive past its length while work runs, then stops", async () => {
    const { queue, c } = await claimedItem(300);
    const keeper = queue.keepAlive(db, c.lease, { intervalMs: 50 });
    await sleep(900);
    await keeper.stop();
    expect(keeper.signal.aborted).toBe(false);
    expect(keeper.current().expiresAt.getTime()).toBeGreaterThan(c.lease.expiresAt.getTime());
    const res = await queue.complete(db, c.lease);
    expect(res.outcome).toBe("applied");
  });

  it("aborts its signal once the lease is lost to another claimer", async () => {
    const { queue, c } = await claimedItem(200);
    const lost: string[] = [];
    // Renewing less often than the lease lasts: the lease lapses and another worker takes it.
    const keeper = queue.keepAlive(db, c.lease, {
      intervalMs: 400,
      onLost: (why) => lost.push(why),
    });
    await sleep(250);
    expect(await queue.claim(db, { owner: "other" })).not.toBeNull();
    await sleep(300);
    await keeper.stop();
    expect(keeper.signal.aborted).toBe(true);
    expect(lost).toEqual(["claimed_elsewhere"]);
  });
});
