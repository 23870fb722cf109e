/**
 * R1 (quality.md §3) at the store level, on real PostgreSQL: simultaneous creations selecting
 * one existing namespace — each in its own transaction that also queues the work and appends
 * the audit event, as the API does — leave exactly one Namespace, one work item and one audit
 * event; every other creation gets the typed conflict and stores nothing.
 */
import { describe, expect, it } from "vitest";
import { newNamespaceId } from "../../../src/domain/placement/ids.js";
import { createWorkQueue } from "../../../src/queue/index.js";
import { appendAuditEvent } from "../../../src/store/audit-events.js";
import type { Db } from "../../../src/store/db.js";
import { markNamespaceDeleting, insertNamespace } from "../../../src/store/namespaces.js";
import { applyTeardownOutcome } from "../../../src/store/namespace-outcomes.js";
import type { Placement } from "../../../src/domain/placement/placement.js";
import { migratedDatabaseForFile } from "../../harness/db.js";

const CONCURRENCY = 50;

const t = await migratedDatabaseForFile({ max: CONCURRENCY + 5 });

const queue = createWorkQueue({ kinds: ["namespace.ensure"] });

/** One creation as the API performs it: Namespace + work item + audit event, one transaction. */
function create(db: Db, name: string, placement: Placement, actor: string) {
  return db.transaction(async (tx) => {
    // Hold every transaction open a moment so that the inserts genuinely overlap.
    await tx.query("SELECT pg_sleep(0.05)");
    const id = newNamespaceId();
    const res = await insertNamespace(tx, { id, name, placement });
    if (res.outcome !== "inserted") return res;
    await queue.enqueue(tx, {
      kind: "namespace.ensure",
      subject: id,
      key: `namespace:${id}:ready`,
      actor,
    });
    await appendAuditEvent(tx, {
      kind: "mutation",
      outcome: "success",
      actor,
      action: "namespaces.create",
      resourceKind: "namespace",
      resourceId: id,
    });
    return res;
  });
}

async function count(sql: string, params: string[]): Promise<number> {
  const res = await t.db.query<{ n: number }>(sql, params);
  return res.rows[0]?.n ?? -1;
}

describe("R1: simultaneous selections of one existing namespace", () => {
  it(`${CONCURRENCY} concurrent creations: exactly one row, the rest a typed conflict`, async () => {
    const selected = "customer-support-prod";
    const results = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) =>
        create(t.db, `support-${i}`, { mode: "external", existingNamespace: selected }, `prn_${i}`),
      ),
    );
    const inserted = results.filter((r) => r.outcome === "inserted");
    const conflicts = results.filter((r) => r.outcome === "conflict");
    expect(inserted).toHaveLength(1);
    expect(conflicts).toHaveLength(CONCURRENCY - 1);
    for (const c of conflicts)
      expect(c).toEqual({ outcome: "conflict", conflict: "existing_namespace_claimed" });

    const winner = inserted[0]?.outcome === "inserted" ? inserted[0].namespace.id : "";
    expect(
      await count("SELECT count(*)::int AS n FROM namespaces WHERE existing_namespace = $1", [
        selected,
      ]),
    ).toBe(1);
    expect(
      await count("SELECT count(*)::int AS n FROM work_items WHERE subject = $1", [winner]),
    ).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM work_items", [])).toBe(1);
    expect(
      await count("SELECT count(*)::int AS n FROM audit_events WHERE resource_id = $1", [winner]),
    ).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM audit_events", [])).toBe(1);
  });

  it("the same name created concurrently: one wins, the rest name_in_use", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        create(t.db, "billing", { mode: "managed" }, `prn_${i}`),
      ),
    );
    expect(results.filter((r) => r.outcome === "inserted")).toHaveLength(1);
    expect(
      results.filter((r) => r.outcome === "conflict" && r.conflict === "name_in_use"),
    ).toHaveLength(19);
    expect(
      await count("SELECT count(*)::int AS n FROM namespaces WHERE name = $1", ["billing"]),
    ).toBe(1);
  });

  it("a deleting holder keeps the claim under concurrency; its tombstone releases it to exactly one", async () => {
    const selected = "team-releases";
    const first = await create(
      t.db,
      "releases-0",
      { mode: "external", existingNamespace: selected },
      "prn_a",
    );
    if (first.outcome !== "inserted") throw new Error("setup");
    await markNamespaceDeleting(t.db, first.namespace.id);

    const whileDeleting = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        create(t.db, `releases-d${i}`, { mode: "external", existingNamespace: selected }, "prn_b"),
      ),
    );
    expect(whileDeleting.every((r) => r.outcome === "conflict")).toBe(true);

    await applyTeardownOutcome(t.db, first.namespace.id, { to: "tombstoned" });
    const afterTombstone = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        create(t.db, `releases-t${i}`, { mode: "external", existingNamespace: selected }, "prn_c"),
      ),
    );
    expect(afterTombstone.filter((r) => r.outcome === "inserted")).toHaveLength(1);
    expect(
      await count(
        "SELECT count(*)::int AS n FROM namespaces WHERE existing_namespace = $1 AND deleted_at IS NULL",
        [selected],
      ),
    ).toBe(1);
  });
});
