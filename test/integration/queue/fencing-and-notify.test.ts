/**
 * Fencing after lease expiry, and LISTEN/NOTIFY wake-ups, on real PostgreSQL with the
 * database's own clock (the production configuration).
 */
import { describe, expect, it } from "vitest";
import { createWorkQueue, listenForWork } from "../../../src/queue/index.js";
import { appendAuditEvent } from "../../../src/store/audit-events.js";
import { openPostgres } from "../../../src/store/pg-db.js";
import { migratedDatabaseForFile } from "../../harness/db.js";
import { sleep } from "../../harness/time.js";

const t = await migratedDatabaseForFile({ max: 10 });

describe("fenced completion after lease expiry", () => {
  /** A queue of `kind` with a short lease, holding one item for `subject` claimed by `owner`. */
  async function claimedWithShortLease(
    kind: string,
    subject: string,
    owner: string,
    leaseMs = 300,
  ) {
    const queue = createWorkQueue({ kinds: [kind], policy: { leaseMs } });
    await queue.enqueue(t.db, { kind, subject, key: `${kind}:1`, actor: "prn_x" });
    const claim = await queue.claim(t.db, { owner });
    if (claim === null) throw new Error("expected a claim");
    return { queue, claim };
  }

  it("a paused worker whose lease expired and was reclaimed cannot publish; the new holder can", async () => {
    const { queue, claim: paused } = await claimedWithShortLease(
      "fence.run",
      "ns_fenced",
      "paused-worker",
    );

    await sleep(450); // the paused worker's lease lapses
    const takeover = await queue.claim(t.db, { owner: "other-worker" });
    expect(takeover?.item).toMatchObject({
      id: paused.item.id,
      claimedBy: "other-worker",
      attemptCount: 2,
    });
    if (takeover === null) throw new Error("expected a reclaim");

    // The paused worker wakes and tries to publish, with its side effect, in one transaction.
    const published = await t.db.transaction(async (tx) => {
      const res = await queue.complete(tx, paused.lease);
      if (res.outcome === "stale") return res;
      await appendAuditEvent(tx, {
        kind: "lifecycle",
        outcome: "success",
        actor: "prn_x",
        action: "namespaces.lifecycle.ensure",
        resourceKind: "namespace",
        resourceId: "ns_fenced",
      });
      return res;
    });
    expect(published).toEqual({ outcome: "stale", why: "claimed_elsewhere" });
    const state = await t.db.query<{ state: string; claimed_by: string }>(
      "SELECT state, claimed_by FROM work_items WHERE id = $1",
      [paused.item.id],
    );
    expect(state.rows).toEqual([{ state: "claimed", claimed_by: "other-worker" }]);
    const audits = await t.db.query("SELECT 1 FROM audit_events WHERE resource_id = 'ns_fenced'");
    expect(audits.rows).toEqual([]);

    const finished = await queue.complete(t.db, takeover.lease);
    expect(finished.outcome === "applied" && finished.item.state).toBe("succeeded");
  });

  it("a worker that renews while it works keeps its claim past the lease length", async () => {
    // A lease of 1.5 s renewed every 200 ms: a renewal may come late on a loaded machine by
    // over a second without the claim lapsing, so what is asserted is the renewal itself.
    const { queue, claim: c } = await claimedWithShortLease(
      "fence.keep",
      "ns_kept",
      "busy-worker",
      1_500,
    );
    const keeper = queue.keepAlive(t.db, c.lease, { intervalMs: 200 });
    const firstExpiry = c.item.leaseExpiresAt;
    if (firstExpiry === null) throw new Error("a claim without a lease");
    // Until the database's clock is half a lease past the claim's first expiry.
    const pastFirstExpiry = async () =>
      (
        await t.db.query<{ past: boolean }>(
          "SELECT now() > $1::timestamptz + interval '750 milliseconds' AS past",
          [firstExpiry],
        )
      ).rows[0]?.past === true;
    while (!(await pastFirstExpiry())) await sleep(100);
    expect(await queue.claim(t.db, { owner: "other-worker" })).toBeNull();
    await keeper.stop();
    expect(keeper.signal.aborted).toBe(false);
    const res = await queue.complete(t.db, c.lease);
    expect(res.outcome === "applied" && res.item.state).toBe("succeeded");
  });
});

describe("LISTEN/NOTIFY", () => {
  it("wakes a listener on another connection when an enqueue commits, not when it rolls back", async () => {
    const queue = createWorkQueue({ kinds: ["wake.run"] });
    const producer = openPostgres(t.url, { max: 2 });
    const signal = await listenForWork(t.db, { kinds: ["wake.run"] });
    try {
      const quiet = signal.wait(400);
      await producer
        .transaction(async (tx) => {
          await queue.enqueue(tx, {
            kind: "wake.run",
            subject: "s",
            key: "wake:rolled-back",
            actor: "p",
          });
          throw new Error("roll back");
        })
        .catch(() => undefined);
      expect(await quiet).toBe("timeout");

      const woken = signal.wait(5_000);
      const started = Date.now();
      await producer.transaction((tx) =>
        queue.enqueue(tx, { kind: "wake.run", subject: "s", key: "wake:1", actor: "p" }),
      );
      expect(await woken).toBe("notified");
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((await queue.claim(t.db, { owner: "w" }))?.item.idempotencyKey).toBe("wake:1");
    } finally {
      await signal.close();
      await producer.close();
    }
  });

  it("resubscribes after its connection is killed, wakes waiters, and hears later enqueues", async () => {
    const queue = createWorkQueue({ kinds: ["wake.again"] });
    const errors: string[] = [];
    const signal = await listenForWork(t.db, {
      kinds: ["wake.again"],
      resubscribeDelayMs: 50,
      onError: (err) => errors.push(err.message),
    });
    try {
      const killed = await t.db.query<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
         WHERE datname = current_database() AND query = 'LISTEN occ_work'`,
      );
      expect(killed.rows).toEqual([{ ok: true }]);
      // Notifications may have been missed while it was down: the reconnect itself wakes.
      expect(await signal.wait(5_000)).toBe("notified");
      expect(errors.length).toBeGreaterThan(0);

      const woken = signal.wait(5_000);
      await queue.enqueue(t.db, { kind: "wake.again", subject: "s", key: "again:1", actor: "p" });
      expect(await woken).toBe("notified");
    } finally {
      await signal.close();
    }
  });
});
