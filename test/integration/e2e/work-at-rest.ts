/**
 * A tenant's reconcile work as the database shows it, for the watch tests: when it was last
 * (re)queued, and waiting until tenants' work is at rest, so that a later change of it can only
 * be a pass something requested afterwards.
 */
import { isServerNamespaceId, type NamespaceId } from "../../../src/domain/index.js";
import type { Db } from "../../../src/store/db.js";
import { reconcileWorkKeys } from "../../../src/work/namespace-work.js";
import { sleep } from "../../harness/time.js";

function namespaceId(id: string): NamespaceId {
  if (!isServerNamespaceId(id)) throw new Error(`not a Namespace ID: ${id}`);
  return id;
}

function workKeys(ids: readonly string[]): string[] {
  return ids.flatMap((id) => reconcileWorkKeys(namespaceId(id)));
}

/**
 * When the tenant's reconcile work was last (re)queued: its two alternating rows are requeued
 * in place, so a new request shows as a later `updated_at`, not as a new row.
 */
export async function lastRequested(db: Db, id: string): Promise<number> {
  const res = await db.query<{ at: Date | null }>(
    "SELECT max(updated_at) AS at FROM work_items WHERE idempotency_key = ANY($1)",
    [workKeys([id])],
  );
  return res.rows[0]?.at?.getTime() ?? 0;
}

/** How many of the tenants' reconcile work items are queued or claimed (a pass not yet settled). */
async function busy(db: Db, ids: readonly string[]): Promise<number> {
  const res = await db.query<{ n: string }>(
    "SELECT count(*) AS n FROM work_items WHERE idempotency_key = ANY($1) AND state IN ('queued', 'claimed')",
    [workKeys(ids)],
  );
  return Number(res.rows[0]?.n ?? 0);
}

/**
 * Waits until none of the tenants' work is queued, claimed or requeued for 2 s (their own
 * placement was a change too; a pass still running on a loaded machine would settle later), and
 * returns each one's {@link lastRequested}.
 */
export async function quiet(db: Db, ids: readonly string[], timeoutMs = 60_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let before: number[] = [];
  for (;;) {
    const now = await Promise.all(ids.map((id) => lastRequested(db, id)));
    if (now.every((v, i) => v === before[i]) && (await busy(db, ids)) === 0) return now;
    if (Date.now() > deadline) {
      throw new Error(`the work of ${ids.join(", ")} not at rest after ${timeoutMs} ms`);
    }
    before = now;
    await sleep(2_000);
  }
}
