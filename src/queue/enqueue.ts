/**
 * Putting work on the queue: idempotent enqueue, and reopening work that failed permanently.
 * Both take the caller's `Queryable`, so work is queued in the same transaction as the change
 * that needs it, and both `NOTIFY` so a listening worker wakes as soon as that commits (a
 * notification from a transaction that rolls back is never delivered).
 */
import { StatementParams, type GatedPart } from "../store/composed.js";
import { defineRow, text } from "../store/columns.js";
import type { Queryable } from "../store/db.js";
import { nowParam, nowSql, nowSqlOf } from "./clock.js";
import { WORK_CHANNEL, type QueueConfig, type WorkItem } from "./work-items.js";

export interface EnqueueInput<K extends string> {
  readonly kind: K;
  /** The opaque key of what the work is about; also its lane. */
  readonly subject: string;
  /** Deterministic: one key, one row (e.g. `namespace:<id>:ready`). */
  readonly key: string;
  /** The frozen actor, re-authorized before the work runs. */
  readonly actor: string;
  /** Overrides the policy's convergence deadline for this item. */
  readonly convergenceMs?: number;
  /** Overrides the policy's attempt budget for this item. */
  readonly maxAttempts?: number;
}

/** Fields an existing row with the same key must share for the enqueue to be a repeat. */
export const IDENTITY_FIELDS = ["kind", "subject", "actor"] as const;
export type IdentityField = (typeof IDENTITY_FIELDS)[number];

/** The item holding an idempotency key, read back after a conflicting insert. */
const holderRow = defineRow("work_items (key holder)", {
  id: text,
  kind: text,
  subject: text,
  actor: text,
});

/**
 * - `created`: a new row, queued and available now;
 * - `existing`: the key was already used for the same kind, subject and actor — nothing
 *   changed, whatever state that row is in (the caller decides whether to `reopen` it);
 * - `conflict`: the key is taken by different work; the spec makes that an error.
 */
export type EnqueueResult<K extends string> =
  | { readonly outcome: "created"; readonly item: WorkItem<K> }
  | { readonly outcome: "existing"; readonly item: WorkItem<K> }
  | {
      readonly outcome: "conflict";
      /** The row holding the key (possibly of a kind outside this queue's vocabulary). */
      readonly existingId: string;
      readonly differs: readonly IdentityField[];
    };

/**
 * Enqueues with `INSERT … ON CONFLICT (idempotency_key) DO NOTHING`, so concurrent enqueues of
 * one key produce one row without aborting anyone's transaction, then reads the row that holds
 * the key to tell a repeat from a conflict.
 */
export async function enqueue<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  input: EnqueueInput<K>,
): Promise<EnqueueResult<K>> {
  // The NOTIFY rides on the insert (one round trip, not two): it is sent for an inserted row
  // only, and like any NOTIFY it is delivered when the caller's transaction commits.
  const p = new StatementParams();
  const insert = workItemInsert(config, p, input, "", config.table.select());
  const inserted = await q.query(
    `WITH inserted AS (${insert})
     SELECT inserted.*, pg_notify(${p.add(WORK_CHANNEL)}, inserted.kind)::text AS notified
     FROM inserted`,
    p.values,
  );
  const row = inserted.rows[0];
  if (row !== undefined) return { outcome: "created", item: config.table.decode(row) };
  const found = await q.query(
    "SELECT id::text AS id, kind, subject, actor FROM work_items WHERE idempotency_key = $1",
    [input.key],
  );
  const holder = holderRow.decodeFirst(found.rows);
  if (holder === undefined) {
    throw new Error(`enqueue: key ${input.key} conflicted but no row holds it`);
  }
  const differs = IDENTITY_FIELDS.filter((field) => holder[field] !== input[field]);
  if (differs.length > 0) return { outcome: "conflict", existingId: holder.id, differs };
  const existing = await q.query(`SELECT ${config.table.select()} FROM work_items WHERE id = $1`, [
    holder.id,
  ]);
  return { outcome: "existing", item: config.table.decode(existing.rows[0]) };
}

/**
 * The work-item INSERT of `input`, its values added to `p`, selecting from the now (`n`) and
 * `alsoFrom` (`, <cte>`: one row per row of that CTE; empty: one row).
 */
function workItemInsert<K extends string>(
  config: QueueConfig<K>,
  p: StatementParams,
  input: EnqueueInput<K>,
  alsoFrom: string,
  returning: string,
): string {
  const now = nowSqlOf(p.add(nowParam(config.clock)));
  const convergence = p.add(input.convergenceMs ?? config.policy.convergenceMs);
  return `INSERT INTO work_items (idempotency_key, kind, subject, actor, max_attempts,
                               available_at, deadline_at, created_at, updated_at)
     SELECT ${p.add(input.key)}, ${p.add(input.kind)}, ${p.add(input.subject)}, ${p.add(input.actor)},
            ${p.add(input.maxAttempts ?? config.policy.maxAttempts)},
            n.t, n.t + ${convergence}::float8 * interval '1 millisecond', n.t, n.t
     FROM (SELECT ${now} AS t) AS n${alsoFrom}
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING ${returning}`;
}

/**
 * {@link enqueue} as part of a composed statement (`store/composed.ts`): the item and its
 * NOTIFY, made only when the statement's gate row was inserted. The caller's row is new, so
 * its work key is too; a key already held would insert nothing (no conflict is reported).
 */
export function enqueueGated<K extends string>(
  config: QueueConfig<K>,
  input: EnqueueInput<K>,
): GatedPart {
  return (p, gate, name) => [
    { name: `${name}_item`, sql: workItemInsert(config, p, input, `, ${gate}`, "kind") },
    {
      name: `${name}_notified`,
      sql: `SELECT pg_notify(${p.add(WORK_CHANNEL)}, kind) FROM ${name}_item`,
    },
  ];
}

export interface ReopenInput {
  readonly key: string;
  /** Who asked for the retry; becomes the item's frozen actor. */
  readonly actor: string;
  readonly convergenceMs?: number;
}

export type ReopenResult<K extends string> =
  | { readonly outcome: "reopened"; readonly item: WorkItem<K> }
  | { readonly outcome: "not_failed"; readonly item: WorkItem<K> }
  | { readonly outcome: "not_found" };

/**
 * Returns a `failed_permanent` item to the queue as if new: attempts and pending count reset,
 * available now, a fresh convergence deadline, and the new actor (the person retrying is who
 * is re-authorized). Any other state is `not_failed` and nothing changes — a queued or
 * claimed item is already going to run, and a succeeded one has nothing left to do.
 */
export async function reopen<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  input: ReopenInput,
): Promise<ReopenResult<K>> {
  const cols = config.table.select("w");
  const res = await q.query(
    `UPDATE work_items AS w
     SET state = 'queued', actor = $3, attempt_count = 0, pending_count = 0,
         available_at = n.t, deadline_at = n.t + $4::float8 * interval '1 millisecond',
         finished_at = NULL, updated_at = n.t
     FROM (SELECT ${nowSql(1)} AS t) AS n
     WHERE w.idempotency_key = $2 AND w.state = 'failed_permanent' AND w.kind = ANY($5::text[])
     RETURNING ${cols}`,
    [
      nowParam(config.clock),
      input.key,
      input.actor,
      input.convergenceMs ?? config.policy.convergenceMs,
      config.kinds,
    ],
  );
  const row = res.rows[0];
  if (row !== undefined) {
    const item = config.table.decode(row);
    await notify(q, item.kind);
    return { outcome: "reopened", item };
  }
  const found = await q.query(
    `SELECT ${config.table.select()} FROM work_items WHERE idempotency_key = $1 AND kind = ANY($2::text[])`,
    [input.key, config.kinds],
  );
  const existing = found.rows[0];
  return existing === undefined
    ? { outcome: "not_found" }
    : { outcome: "not_failed", item: config.table.decode(existing) };
}

async function notify(q: Queryable, kind: string): Promise<void> {
  await q.query("SELECT pg_notify($1, $2)", [WORK_CHANNEL, kind]);
}
