/**
 * The resync's pass requests for a page of Namespaces at once (lifecycle.md §1): for each,
 * what {@link requestNamespacePass} decides, in three statements and one NOTIFY for the whole
 * page instead of up to four round trips and a NOTIFY each. At 10,000 Namespaces the one by
 * one requests were 40,000 round trips, and 10,000 NOTIFYs each woke every listening worker's
 * idle slots to claim (bench P9).
 *
 * A `provisioning` Namespace whose placement item is not queued (rare: its pass is running or
 * has ended past its deadline) is asked for one by one, with the placement's own actor.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { isLiveStatus } from "../domain/placement/namespace-status.js";
import type { WorkQueue } from "../queue/work-queue.js";
import type { Queryable } from "../store/db.js";
import { namespaceWorkSubject } from "./lanes.js";
import {
  RECONCILER_ACTOR,
  notifyNamespaceWork,
  requestNamespacePass,
  requeueEnsureWorks,
  type PassRequestReason,
  type PassRequestResult,
} from "./namespace-pass-request.js";
import { reconcileWorkKeys, type NamespaceWorkKind } from "./namespace-work.js";

/** {@link requestNamespacePass} for each of `ids` (distinct); the result of each by ID. */
export async function requestNamespacePasses(
  q: Queryable,
  queue: WorkQueue<NamespaceWorkKind>,
  ids: readonly NamespaceId[],
  reason: PassRequestReason,
): Promise<Map<NamespaceId, PassRequestResult>> {
  const results = new Map<NamespaceId, PassRequestResult>();
  if (ids.length === 0) return results;
  // Each live Namespace's status, and its queued item pulled forward when it has one.
  const found = await q.query<{ id: NamespaceId; status: string; item: string | null }>(
    `WITH ns AS (
       SELECT n.id, n.status, r.subject
         FROM unnest($1::text[], $2::text[]) AS r(id, subject)
         JOIN namespaces n ON n.id = r.id AND n.deleted_at IS NULL
     ), due AS (
       UPDATE work_items w SET available_at = LEAST(w.available_at, now()), updated_at = now()
         FROM ns
        WHERE w.subject = ns.subject AND w.kind = 'namespace.ensure' AND w.state = 'queued'
       RETURNING ns.id, w.id::text AS item
     )
     SELECT ns.id, ns.status, due.item FROM ns LEFT JOIN due ON due.id = ns.id`,
    [ids, ids.map(namespaceWorkSubject)],
  );
  const bound: NamespaceId[] = [];
  for (const row of found.rows) {
    if (results.has(row.id) || !isLiveStatus(row.status)) continue;
    if (row.item !== null) {
      results.set(row.id, { reason, outcome: "deduplicated", itemId: row.item });
    } else if (row.status === "provisioning") {
      results.set(row.id, await requestNamespacePass(q, queue, row.id, reason));
    } else bound.push(row.id);
  }
  // A bound Namespace's first reconcile item if it has ended, else its second.
  let left = bound;
  for (const which of [0, 1] as const) {
    const inputs = left.map((id) => ({
      key: reconcileWorkKeys(id)[which],
      subject: namespaceWorkSubject(id),
      actor: RECONCILER_ACTOR,
    }));
    const queued = await requeueEnsureWorks(q, queue, inputs);
    for (const id of left) {
      const itemId = queued.get(reconcileWorkKeys(id)[which]);
      if (itemId !== undefined) results.set(id, { reason, outcome: "queued", itemId });
    }
    left = left.filter((id) => !results.has(id));
  }
  // Both rows busy (one claimed, the other just queued by a concurrent request).
  for (const id of left) results.set(id, { reason, outcome: "in_flight" });
  for (const id of ids) if (!results.has(id)) results.set(id, { reason, outcome: "not_live" });
  const woke = [...results.values()].some(
    (r) => r.outcome === "queued" || r.outcome === "deduplicated",
  );
  if (woke) await notifyNamespaceWork(q);
  return results;
}
