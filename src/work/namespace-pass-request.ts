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
import type { WorkQueuePolicy } from "../queue/policy.js";
import type { WorkQueue } from "../queue/work-queue.js";
import { WORK_CHANNEL } from "../queue/work-items.js";
import type { Queryable } from "../store/db.js";
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
  const found = await q.query<{ status: string }>(
    "SELECT status FROM namespaces WHERE id = $1 AND deleted_at IS NULL",
    [id],
  );
  const status = found.rows[0]?.status;
  if (status === undefined || !isLiveStatus(status)) {
    return { reason, outcome: "not_live" };
  }
  const subject = namespaceWorkSubject(id);
  const due = await q.query<{ id: string }>(
    `UPDATE work_items SET available_at = LEAST(available_at, now()), updated_at = now()
     WHERE subject = $1 AND kind = 'namespace.ensure' AND state = 'queued'
     RETURNING id::text AS id`,
    [subject],
  );
  const queued = due.rows[0];
  if (queued !== undefined) {
    await notifyNamespaceWork(q);
    return { reason, outcome: "deduplicated", itemId: queued.id };
  }
  if (status === "provisioning") {
    const held = await q.query<{ actor: string }>(
      "SELECT actor FROM work_items WHERE idempotency_key = $1",
      [ensureWorkKey(id)],
    );
    const actor = held.rows[0]?.actor;
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
 * `failed_permanent`) to the queue as new: available now, a fresh attempt budget and
 * convergence deadline, and `actor` as its frozen actor. A queued or claimed item is left
 * alone and `null` returned. NOTIFYs on success, so a listening worker wakes at commit.
 */
export async function requeueEnsureWork(
  q: Queryable,
  queue: { readonly policy: WorkQueuePolicy },
  input: RequeueInput,
): Promise<string | null> {
  const id = (await requeueEnsureWorks(q, queue, [input])).get(input.key) ?? null;
  if (id !== null) await notifyNamespaceWork(q);
  return id;
}

/**
 * {@link requeueEnsureWork} for many distinct keys in one statement, without the NOTIFY (the
 * caller sends one for all): the item ID by key of those created or requeued.
 */
export async function requeueEnsureWorks(
  q: Queryable,
  queue: { readonly policy: WorkQueuePolicy },
  inputs: readonly RequeueInput[],
): Promise<Map<string, string>> {
  if (inputs.length === 0) return new Map();
  const res = await q.query<{ key: string; id: string }>(
    `INSERT INTO work_items (idempotency_key, kind, subject, actor, max_attempts,
                             available_at, deadline_at, created_at, updated_at)
     SELECT r.key, 'namespace.ensure', r.subject, r.actor, $4, now(),
            now() + $5::float8 * interval '1 millisecond', now(), now()
       FROM unnest($1::text[], $2::text[], $3::text[]) AS r(key, subject, actor)
     ON CONFLICT (idempotency_key) DO UPDATE
       SET state = 'queued', actor = EXCLUDED.actor, attempt_count = 0, pending_count = 0,
           max_attempts = EXCLUDED.max_attempts, available_at = EXCLUDED.available_at,
           deadline_at = EXCLUDED.deadline_at, finished_at = NULL, updated_at = now()
       WHERE work_items.state IN ('succeeded', 'failed_permanent')
         AND work_items.kind = 'namespace.ensure' AND work_items.subject = EXCLUDED.subject
     RETURNING idempotency_key AS key, id::text AS id`,
    [
      inputs.map((i) => i.key),
      inputs.map((i) => i.subject),
      inputs.map((i) => i.actor),
      queue.policy.maxAttempts,
      queue.policy.convergenceMs,
    ],
  );
  return new Map(res.rows.map((r) => [r.key, r.id]));
}

export async function notifyNamespaceWork(q: Queryable): Promise<void> {
  await q.query("SELECT pg_notify($1, $2)", [WORK_CHANNEL, "namespace.ensure"]);
}
