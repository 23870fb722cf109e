import { describe, expect, it } from "vitest";
import { newNamespaceId, type NamespaceId } from "../../../src/domain/placement/ids.js";
import { namespaceWorkSubject } from "../../../src/work/lanes.js";
import {
  RECONCILER_ACTOR,
  requestNamespacePass,
} from "../../../src/work/namespace-pass-request.js";
import { requestNamespacePasses } from "../../../src/work/namespace-pass-batch.js";
import {
  NAMESPACE_WORK_KINDS,
  ensureWorkKey,
  reconcileWorkKeys,
} from "../../../src/work/namespace-work.js";
import { createWorkQueue } from "../../../src/queue/work-queue.js";
import { migratedPgliteForFile, unique } from "../../harness/pglite.js";

const UID = "0f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6";
const queue = createWorkQueue({ kinds: NAMESPACE_WORK_KINDS });
const db = await migratedPgliteForFile();

/** A Namespace row in `status` with its placement item, as the API and worker leave it. */
async function namespaceIn(
  status: string,
  item: "queued" | "succeeded" | "failed",
): Promise<NamespaceId> {
  const id = newNamespaceId();
  const bound = status === "ready" || status === "degraded";
  const reason = status === "degraded" || status === "failed";
  await db.query(
    `INSERT INTO namespaces (id, name, placement_mode, status, kubernetes_namespace, kubernetes_uid,
                             status_code, status_reason, status_since)
     VALUES ($1, $2, 'managed', $3, $4, $5, $6, $6, $7)`,
    [
      id,
      unique("n"),
      status,
      bound ? unique("oce") : null,
      bound ? UID : null,
      reason ? "X" : null,
      reason ? new Date() : null,
    ],
  );
  await queue.enqueue(db, {
    kind: "namespace.ensure",
    subject: namespaceWorkSubject(id),
    key: ensureWorkKey(id),
    actor: "prn_creator",
  });
  if (item !== "queued") {
    await db.query(
      `UPDATE work_items SET state = $2, finished_at = now() WHERE idempotency_key = $1`,
      [ensureWorkKey(id), item === "failed" ? "failed_permanent" : "succeeded"],
    );
  }
  return id;
}

async function items(id: NamespaceId) {
  const res = await db.query<{ idempotency_key: string; state: string; actor: string }>(
    "SELECT idempotency_key, state, actor FROM work_items WHERE subject = $1 ORDER BY idempotency_key",
    [namespaceWorkSubject(id)],
  );
  return res.rows;
}

describe("requestNamespacePass", () => {
  it("queues a bound Namespace's reconcile work as the system, once however often it is asked", async () => {
    const id = await namespaceIn("ready", "succeeded");
    const first = await requestNamespacePass(db, queue, id, "resync");
    const second = await requestNamespacePass(db, queue, id, "watch");
    expect(first).toMatchObject({ outcome: "queued", reason: "resync" });
    expect(second).toMatchObject({ outcome: "deduplicated", reason: "watch" });
    expect(await items(id)).toEqual([
      { idempotency_key: ensureWorkKey(id), state: "succeeded", actor: "prn_creator" },
      { idempotency_key: reconcileWorkKeys(id)[0], state: "queued", actor: RECONCILER_ACTOR },
    ]);
  });

  it("queues the other reconcile item while one is claimed, so a change during a pass is not lost", async () => {
    const id = await namespaceIn("degraded", "succeeded");
    await requestNamespacePass(db, queue, id, "resync");
    // A worker holds the first reconcile item (a pass is running).
    await db.query(
      `UPDATE work_items SET state = 'claimed', claim_token = gen_random_uuid(), claimed_by = 'w',
              lease_expires_at = now() + interval '1 minute'
       WHERE idempotency_key = $1`,
      [reconcileWorkKeys(id)[0]],
    );
    expect(await requestNamespacePass(db, queue, id, "watch")).toMatchObject({ outcome: "queued" });
    expect((await items(id)).map((i) => i.state)).toEqual(["succeeded", "claimed", "queued"]);
    expect(await requestNamespacePass(db, queue, id, "watch")).toMatchObject({
      outcome: "deduplicated",
    });
  });

  it("requeues a provisioning Namespace's placement item under its own actor when it ended", async () => {
    const id = await namespaceIn("provisioning", "failed");
    expect(await requestNamespacePass(db, queue, id, "resync")).toMatchObject({
      outcome: "queued",
    });
    expect(await items(id)).toEqual([
      { idempotency_key: ensureWorkKey(id), state: "queued", actor: "prn_creator" },
    ]);
  });

  it("pulls a queued placement item forward instead of adding work", async () => {
    const id = await namespaceIn("provisioning", "queued");
    await db.query(
      "UPDATE work_items SET available_at = now() + interval '1 hour' WHERE idempotency_key = $1",
      [ensureWorkKey(id)],
    );
    expect(await requestNamespacePass(db, queue, id, "watch")).toMatchObject({
      outcome: "deduplicated",
    });
    const due = await db.query<{ due: boolean }>(
      "SELECT available_at <= now() AS due FROM work_items WHERE idempotency_key = $1",
      [ensureWorkKey(id)],
    );
    expect(due.rows).toEqual([{ due: true }]);
    expect(await items(id)).toHaveLength(1);
  });

  it.each(["failed", "deleting"])("queues nothing for a %s Namespace", async (status) => {
    const id = await namespaceIn(status, "failed");
    expect(await requestNamespacePass(db, queue, id, "resync")).toMatchObject({
      outcome: "not_live",
    });
    expect(await items(id)).toEqual([
      { idempotency_key: ensureWorkKey(id), state: "failed_permanent", actor: "prn_creator" },
    ]);
  });
});

describe("requestNamespacePasses: the resync's page at once decides as one by one", () => {
  /** Each case's Namespace as the API and worker leave it, twice over: one per way of asking. */
  const CASES: Record<string, () => Promise<NamespaceId>> = {
    "ready, placement ended": () => namespaceIn("ready", "succeeded"),
    "degraded, first reconcile item claimed": async () => {
      const id = await namespaceIn("degraded", "succeeded");
      await requestNamespacePass(db, queue, id, "resync");
      await db.query(
        `UPDATE work_items SET state = 'claimed', claim_token = gen_random_uuid(), claimed_by = 'w',
                lease_expires_at = now() + interval '1 minute' WHERE idempotency_key = $1`,
        [reconcileWorkKeys(id)[0]],
      );
      return id;
    },
    "ready, reconcile item queued later": async () => {
      const id = await namespaceIn("ready", "succeeded");
      await requestNamespacePass(db, queue, id, "resync");
      await db.query(
        "UPDATE work_items SET available_at = now() + interval '1 hour' WHERE idempotency_key = $1",
        [reconcileWorkKeys(id)[0]],
      );
      return id;
    },
    "provisioning, placement ended": () => namespaceIn("provisioning", "failed"),
    "provisioning, placement queued": () => namespaceIn("provisioning", "queued"),
    failed: () => namespaceIn("failed", "failed"),
    deleting: () => namespaceIn("deleting", "failed"),
    unknown: () => Promise.resolve(newNamespaceId()),
  };

  const shape = async (id: NamespaceId) =>
    (await items(id)).map((i) => ({
      key: i.idempotency_key.replace(id, "<id>"),
      state: i.state,
      actor: i.actor,
    }));

  it("gives each Namespace the outcome and work items a request of its own gives", async () => {
    const cases = Object.entries(CASES);
    const single: NamespaceId[] = [];
    const batched: NamespaceId[] = [];
    for (const [, make] of cases) {
      single.push(await make());
      batched.push(await make());
    }
    const results = await requestNamespacePasses(db, queue, batched, "resync");
    for (const [i, [name]] of cases.entries()) {
      const [one, many] = [single[i], batched[i]];
      if (one === undefined || many === undefined) throw new Error(`case ${name} was not made`);
      const alone = await requestNamespacePass(db, queue, one, "resync");
      expect({ name, outcome: results.get(many)?.outcome }).toEqual({
        name,
        outcome: alone.outcome,
      });
      expect({ name, items: await shape(many) }).toEqual({ name, items: await shape(one) });
    }
    const due = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM work_items
        WHERE subject = ANY($1::text[]) AND state = 'queued' AND available_at > now()`,
      [batched.map(namespaceWorkSubject)],
    );
    expect(due.rows.map((r) => Number(r.n))).toEqual([0]);
  });
});
