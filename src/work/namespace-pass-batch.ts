/**
 * The resync's pass requests for a page of Namespaces at once (lifecycle.md §1): for each,
 * what {@link requestNamespacePass} decides, in four statements for the whole page (the
 * store's statuses, the queue's batch pull-forward and requeues) instead of up to four round
 * trips each. At 10,000 Namespaces the one by
 * one requests were 40,000 round trips, and 10,000 NOTIFYs each woke every listening worker's
 * idle slots to claim (bench P9).
 *
 * A `provisioning` Namespace whose placement item is not queued (rare: its pass is running or
 * has ended past its deadline) is asked for one by one, with the placement's own actor.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { isLiveStatus } from "../domain/placement/namespace-status.js";
import { pullForwardMany, requeueMany } from "../queue/requeue.js";
import type { WorkQueue } from "../queue/work-queue.js";
import type { Queryable } from "../store/db.js";
import { statusesOfNamespaces } from "../store/namespace-passes.js";
import { namespaceWorkSubject } from "./lanes.js";
import {
  RECONCILER_ACTOR,
  requestNamespacePass,
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
  const statuses = await statusesOfNamespaces(q, ids);
  const live = ids.filter((id) => {
    const status = statuses.get(id);
    return status !== undefined && isLiveStatus(status);
  });
  // Each live Namespace's queued item pulled forward when it has one.
  const due = await pullForwardMany(queue, q, live.map(namespaceWorkSubject), "namespace.ensure");
  const bound: NamespaceId[] = [];
  for (const id of live) {
    const item = due.get(namespaceWorkSubject(id));
    if (item !== undefined) {
      results.set(id, { reason, outcome: "deduplicated", itemId: item });
    } else if (statuses.get(id) === "provisioning") {
      results.set(id, await requestNamespacePass(q, queue, id, reason));
    } else bound.push(id);
  }
  // A bound Namespace's first reconcile item if it has ended, else its second.
  let left = bound;
  for (const which of [0, 1] as const) {
    const inputs = left.map((id) => ({
      key: reconcileWorkKeys(id)[which],
      subject: namespaceWorkSubject(id),
      actor: RECONCILER_ACTOR,
    }));
    const queued = await requeueMany(queue, q, "namespace.ensure", inputs);
    for (const id of left) {
      const itemId = queued.get(reconcileWorkKeys(id)[which]);
      if (itemId !== undefined) results.set(id, { reason, outcome: "queued", itemId });
    }
    left = left.filter((id) => !results.has(id));
  }
  // Both rows busy (one claimed, the other just queued by a concurrent request).
  for (const id of left) results.set(id, { reason, outcome: "in_flight" });
  for (const id of ids) if (!results.has(id)) results.set(id, { reason, outcome: "not_live" });
  return results;
}
