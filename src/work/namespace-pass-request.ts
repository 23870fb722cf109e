/**
 * Asking for a Namespace pass after placement (lifecycle.md §1): the periodic resync, a watched
 * change and an administrator's retry all come here, so that a tenant's work is deduplicated
 * with what is already queued and a change is never lost while a pass is running.
 *
 * - A `provisioning` Namespace has one work item, `namespace:<id>:ready`, with the actor who
 *   asked for the placement (re-authorized before it runs). A request pulls it forward when it
 *   is queued, or requeues it when it ended (a pending placement past its convergence deadline
 *   stays provisioning and is picked up again here).
 * - A bound (`ready` or `degraded`) Namespace is reconciled by the system itself
 *   ({@link RECONCILER_ACTOR}: nothing new is adopted, so there is nobody to re-authorize).
 *   It alternates between two items, `…:reconcile:a` and `…:reconcile:b`: while one is claimed
 *   the other is queued, so a change seen during a pass gets a pass after it. At most two rows
 *   per Namespace, whatever the number of resyncs.
 * - `failed`, `deleting` and tombstoned Namespaces get nothing: a failed one comes back only by
 *   an administrator's retry, and teardown has its own work.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { requeue } from "../queue/requeue.js";
import type { QueueConfig } from "../queue/work-items.js";
import type { WorkQueue } from "../queue/work-queue.js";
import type { Queryable } from "../store/db.js";
import { statusOfNamespace } from "../store/namespace-passes.js";
import { namespaceWorkSubject } from "./lanes.js";
import { ensureWorkKey, reconcileWorkKeys, type NamespaceWorkKind } from "./namespace-work.js";
import { isLiveStatus } from "../domain/placement/namespace-status.js";

/** The frozen actor of the system's own reconcile passes over bound Namespaces. */
export const RECONCILER_ACTOR = "system:reconciler";

/** Why a pass is asked for (logs and metrics only; the pass itself is level-based). */
export const PASS_REQUEST_REASONS = ["resync", "watch", "retry"] as const;
export type PassRequestReason = (typeof PASS_REQUEST_REASONS)[number];

/**
 * - `queued`: a work item was created or requeued;
 * - `deduplicated`: work for the Namespace was already queued (and is now due);
 * - `in_flight`: a provisioning pass is running; it decides again when it ends;
 * - `not_live`: the Namespace is failed, deleting, tombstoned or unknown.
 */
export type PassRequestResult = { readonly reason: PassRequestReason } & (
  | { readonly outcome: "queued" | "deduplicated"; readonly itemId: string }
  | { readonly outcome: "in_flight" | "not_live" }
);

/** Requests one `namespace.ensure` pass for `id` as described in the module comment. */
export async function requestNamespacePass(
  q: Queryable,
  queue: WorkQueue<NamespaceWorkKind>,
  id: NamespaceId,
  reason: PassRequestReason,
): Promise<PassRequestResult> {
  const status = await statusOfNamespace(q, id);
  if (status === undefined || !isLiveStatus(status)) {
    return { reason, outcome: "not_live" };
  }
  const subject = namespaceWorkSubject(id);
  const queued = await queue.pullForward(q, subject, "namespace.ensure");
  if (queued !== null) return { reason, outcome: "deduplicated", itemId: queued };
  if (status === "provisioning") {
    const actor = await queue.actorOf(q, ensureWorkKey(id));
    if (actor === undefined) return { reason, outcome: "not_live" };
    const itemId = await requeueEnsureWork(q, queue, { key: ensureWorkKey(id), subject, actor });
    return itemId === null
      ? { reason, outcome: "in_flight" }
      : { reason, outcome: "queued", itemId };
  }
  for (const key of reconcileWorkKeys(id)) {
    const itemId = await requeueEnsureWork(q, queue, { key, subject, actor: RECONCILER_ACTOR });
    if (itemId !== null) return { reason, outcome: "queued", itemId };
  }
  // Both rows are busy (one claimed, the other just queued by a concurrent request).
  return { reason, outcome: "in_flight" };
}

export interface RequeueInput {
  readonly key: string;
  readonly subject: string;
  /** The frozen actor of the requeued work (re-authorized before it runs, unless the system). */
  readonly actor: string;
}

/**
 * Creates the `namespace.ensure` item with `key`, or returns an ended one (`succeeded` or
 * `failed_permanent`) to the queue as new (`queue/requeue.ts`). A queued or claimed item is
 * left alone and `null` returned. NOTIFYs on success, so a listening worker wakes at commit.
 */
export function requeueEnsureWork(
  q: Queryable,
  queue: Pick<QueueConfig<NamespaceWorkKind>, "clock" | "policy">,
  input: RequeueInput,
): Promise<string | null> {
  return requeue(queue, q, { ...input, kind: "namespace.ensure" });
}
