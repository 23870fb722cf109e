/**
 * The batch forms of `requeue.ts` for a page of lanes at once (the resync, bench P9: one by one,
 * 10,000 Namespaces were 40,000 round trips and 10,000 NOTIFYs). Same semantics per row, the
 * queue's clock, and the NOTIFY in the same statement (PostgreSQL delivers identical
 * notifications of one transaction once, so a page wakes the workers once).
 */
import { StatementParams } from "../store/composed.js";
import type { Queryable } from "../store/db.js";
import { rowObject, text } from "../store/columns.js";
import { nowParam, nowSqlOf } from "./clock.js";
import type { RequeueInput } from "./requeue.js";
import { WORK_CHANNEL, type QueueConfig } from "./work-items.js";

/** `column → value` of every row of a result, decoded as text. */
function pairs(rows: readonly unknown[], from: string, to: string): Map<string, string> {
  return new Map(
    rows.map((raw) => {
      const row = rowObject(raw, "requeued work item");
      return [text(row[from]), text(row[to])];
    }),
  );
}

/**
 * `pullForward` for each lane of `subjects`: the queued items of `kind` there become available
 * now. Returns the ID of one queued item by lane, for the lanes that had one.
 */
export async function pullForwardMany<K extends string>(
  config: Pick<QueueConfig<K>, "clock">,
  q: Queryable,
  subjects: readonly string[],
  kind: K,
): Promise<Map<string, string>> {
  if (subjects.length === 0) return new Map();
  const p = new StatementParams();
  const now = nowSqlOf(p.add(nowParam(config.clock)));
  const res = await q.query(
    `WITH due AS (
       UPDATE work_items SET available_at = LEAST(available_at, ${now}), updated_at = ${now}
       WHERE subject = ANY(${p.add(subjects)}::text[]) AND kind = ${p.add(kind)}
         AND state = 'queued'
       RETURNING id::text AS id, subject, kind)
     SELECT subject, id, pg_notify(${p.add(WORK_CHANNEL)}, kind)::text AS notified FROM due`,
    p.values,
  );
  return pairs(res.rows, "subject", "id");
}

/**
 * `requeue` for many distinct keys of one `kind` in one statement: the item ID by key of those
 * created or returned to the queue (a queued or claimed item is left alone and not listed).
 */
export async function requeueMany<K extends string>(
  config: Pick<QueueConfig<K>, "clock" | "policy">,
  q: Queryable,
  kind: K,
  inputs: readonly Omit<RequeueInput<K>, "kind">[],
): Promise<Map<string, string>> {
  if (inputs.length === 0) return new Map();
  const p = new StatementParams();
  const now = nowSqlOf(p.add(nowParam(config.clock)));
  const res = await q.query(
    `WITH n AS (SELECT ${now} AS t),
     item AS (
       INSERT INTO work_items (idempotency_key, kind, subject, actor, max_attempts,
                               available_at, deadline_at, created_at, updated_at)
       SELECT r.key, ${p.add(kind)}, r.subject, r.actor, ${p.add(config.policy.maxAttempts)},
              n.t, n.t + ${p.add(config.policy.convergenceMs)}::float8 * interval '1 millisecond',
              n.t, n.t
       FROM n, unnest(${p.add(inputs.map((i) => i.key))}::text[],
                      ${p.add(inputs.map((i) => i.subject))}::text[],
                      ${p.add(inputs.map((i) => i.actor))}::text[]) AS r(key, subject, actor)
       ON CONFLICT (idempotency_key) DO UPDATE
         SET state = 'queued', actor = EXCLUDED.actor, attempt_count = 0, pending_count = 0,
             max_attempts = EXCLUDED.max_attempts, available_at = EXCLUDED.available_at,
             deadline_at = EXCLUDED.deadline_at, finished_at = NULL,
             updated_at = EXCLUDED.updated_at
         WHERE work_items.state IN ('succeeded', 'failed_permanent')
           AND work_items.kind = EXCLUDED.kind AND work_items.subject = EXCLUDED.subject
       RETURNING idempotency_key AS key, id::text AS id, kind)
     SELECT key, id, pg_notify(${p.add(WORK_CHANNEL)}, kind)::text AS notified FROM item`,
    p.values,
  );
  return pairs(res.rows, "key", "id");
}
