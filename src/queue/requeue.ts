/**
 * Asking again for work that may already exist, by key: pull a queued item forward, or return
 * an ended one to the queue as new. The watches, the resync and an administrator's retry ask
 * this way (`work/namespace-pass-request.ts`); like every queue statement these read the
 * queue's clock and NOTIFY in the same statement, so a listening worker wakes at commit.
 * Each statement takes a page of lanes or keys at once (the resync, bench P9: one by one, 10,000
 * Namespaces were 40,000 round trips and 10,000 NOTIFYs; PostgreSQL delivers identical
 * notifications of one transaction once); the one-item forms are their single case.
 */
import { StatementParams } from "../store/composed.js";
import type { Queryable } from "../store/db.js";
import { rowObject, text } from "../store/columns.js";
import { nowParam, nowSqlOf } from "./clock.js";
import { WORK_CHANNEL, type QueueConfig } from "./work-items.js";

export interface RequeueInput<K extends string> {
  readonly key: string;
  readonly kind: K;
  readonly subject: string;
  /** The frozen actor of the requeued work (re-authorized before it runs, unless the system). */
  readonly actor: string;
}

/**
 * Makes the queued items of `kind` in lane `subject` available now (an earlier availability is
 * kept). Returns the ID of one of them, or `null` when none is queued.
 */
export async function pullForward<K extends string>(
  config: Pick<QueueConfig<K>, "clock">,
  q: Queryable,
  subject: string,
  kind: K,
): Promise<string | null> {
  return (await pullForwardMany(config, q, [subject], kind)).get(subject) ?? null;
}

/** The frozen actor of the item holding `key`, or `undefined` when there is none. */
export async function actorOfKey<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  key: string,
): Promise<string | undefined> {
  const res = await q.query(
    "SELECT actor FROM work_items WHERE idempotency_key = $1 AND kind = ANY($2::text[])",
    [key, config.kinds],
  );
  const row = res.rows[0];
  return row === undefined ? undefined : text(rowObject(row, "work item actor").actor);
}

/**
 * Creates the item of `input.key`, or returns an ended one (`succeeded` or `failed_permanent`)
 * of the same kind and lane to the queue as new: available now, a fresh attempt budget and
 * convergence deadline, and `input.actor` as its frozen actor. A queued or claimed item is left
 * alone and `null` returned; otherwise the item's ID.
 */
export async function requeue<K extends string>(
  config: Pick<QueueConfig<K>, "clock" | "policy">,
  q: Queryable,
  input: RequeueInput<K>,
): Promise<string | null> {
  return (await requeueMany(config, q, input.kind, [input])).get(input.key) ?? null;
}

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
