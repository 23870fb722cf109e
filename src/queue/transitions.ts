/**
 * Fenced state changes of a claimed item. Each is one statement that names the item, its
 * claim token and requires an unexpired lease, so a worker that stalled past its lease (and
 * whose item may have been reclaimed by another) changes nothing and is told so — it can never
 * publish a result. Run them in the same transaction as the effects of the outcome (the
 * resource update, the audit event): a refused transition means the caller must roll those
 * back, which is why the refusal is a result to check and not a silent no-op.
 *
 * What an outcome means for the resource belongs to the caller; the queue only decides the
 * item's next state from its own policy: attempts, the convergence deadline, backoff.
 */
import type { Queryable } from "../store/db.js";
import { composeGated, StatementParams, type GatedPart } from "../store/composed.js";
import { bool, defineRow, rowObject, text } from "../store/columns.js";
import { claimCtes, claimOfRow, isLaneRace, type ClaimOptions } from "./claim.js";
import { nowParam, nowSql, nowSqlOf } from "./clock.js";
import { backoffDelayMs } from "./policy.js";
import {
  clipMessage,
  type Claim,
  type Lease,
  type QueueConfig,
  type WorkItem,
  type WorkNote,
} from "./work-items.js";

/** The flags a transition's UPDATE returns beside the row (`t.out_of_attempts`, …). */
const movedFlags = defineRow("work_items (transition)", {
  outOfAttempts: bool,
  pastDeadline: bool,
});
const staleRow = defineRow("work_items (stale)", { state: text, ours: bool, live: bool });

/**
 * Why a fenced change was refused:
 * - `lease_expired`: still this claim's token, but the lease ran out (nobody reclaimed yet);
 * - `claimed_elsewhere`: another claim holds the item now;
 * - `not_claimed`: the item is no longer claimed (finished, or requeued and not yet taken);
 * - `not_found`: no such item.
 */
export const STALE_REASONS = [
  "lease_expired",
  "claimed_elsewhere",
  "not_claimed",
  "not_found",
] as const;
export type StaleReason = (typeof STALE_REASONS)[number];

/** Why a retry or pending outcome turned into `failed_permanent`. */
export const EXHAUSTION_CAUSES = ["attempts", "deadline"] as const;
export type ExhaustionCause = (typeof EXHAUSTION_CAUSES)[number];

export type TransitionResult<K extends string> =
  | {
      readonly outcome: "applied";
      /** The item after the change; `item.state` is where it went. */
      readonly item: WorkItem<K>;
      /** Set when a retry or pending outcome became `failed_permanent` by policy. */
      readonly exhausted: ExhaustionCause | null;
      /**
       * The next claim made in the same statement ({@link complete}'s `next`): `null` when
       * nothing was eligible; absent when none was asked for, or when it lost a lane race and
       * the completion was applied alone.
       */
      readonly next?: Claim<K> | null;
    }
  | { readonly outcome: "stale"; readonly why: StaleReason };

/**
 * Done: `succeeded`. An optional note records how (e.g. superseded without a Driver call).
 * `gated` writes are the caller's record of it, in the same statement (see `transition`).
 */
export function complete<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  lease: Lease,
  note?: WorkNote,
  /** Writes made in the same statement, only when the item was completed (`composed.ts`). */
  gated: readonly GatedPart[] = [],
  /**
   * The slot's next claim, made in the same statement once the completion applied: a round
   * trip (and a transaction) less per pass. Pass the `Db` itself as `q` (see `claim`).
   */
  next?: ClaimOptions<K>,
): Promise<TransitionResult<K>> {
  return transition(
    config,
    q,
    lease,
    { set: `state = 'succeeded', finished_at = n.t, pending_count = 0`, note: note ?? null },
    gated,
    next,
  );
}

/** Terminal: `failed_permanent` now, whatever attempts or time remain. */
export function fail<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  lease: Lease,
  note: WorkNote,
): Promise<TransitionResult<K>> {
  return transition(config, q, lease, {
    set: `state = 'failed_permanent', finished_at = n.t`,
    note,
  });
}

/**
 * A retryable failure: back to `queued` after a jittered exponential delay by attempt number,
 * capped at the deadline — or `failed_permanent` when this was the last attempt or the
 * convergence deadline has passed (`exhausted` says which).
 */
export function retry<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  lease: Lease,
  note: WorkNote,
): Promise<TransitionResult<K>> {
  const delay = backoffDelayMs(lease.attempt, config.policy.retryBackoff, config.random);
  return transition(config, q, lease, {
    set: `state = CASE WHEN t.out_of_attempts OR t.past_deadline THEN 'failed_permanent' ELSE 'queued' END,
          available_at = CASE WHEN t.out_of_attempts OR t.past_deadline THEN w.available_at
                         ELSE LEAST(t.later, w.deadline_at) END,
          finished_at = CASE WHEN t.out_of_attempts OR t.past_deadline THEN n.t END,
          pending_count = 0`,
    note,
    delayMs: delay,
    exhaustible: "attempts",
  });
}

/**
 * Pending — not done, nothing failed: back to `queued` after a short backoff by consecutive
 * pending count, and the claim's attempt is refunded, so waiting (e.g. for an operator's
 * RoleBinding) never uses up the attempt budget. Past the convergence deadline it becomes
 * `failed_permanent` instead (`exhausted: "deadline"`).
 */
export function defer<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  lease: Lease,
  note: WorkNote,
): Promise<TransitionResult<K>> {
  const delay = backoffDelayMs(lease.pendingCount + 1, config.policy.pendingBackoff, config.random);
  return transition(config, q, lease, {
    set: `attempt_count = w.attempt_count - 1, pending_count = w.pending_count + 1,
          state = CASE WHEN t.past_deadline THEN 'failed_permanent' ELSE 'queued' END,
          available_at = CASE WHEN t.past_deadline THEN w.available_at
                         ELSE LEAST(t.later, w.deadline_at) END,
          finished_at = CASE WHEN t.past_deadline THEN n.t END`,
    note,
    delayMs: delay,
    exhaustible: "deadline",
  });
}

/**
 * Gives the item back untouched — `queued`, available now, attempt refunded — e.g. when the
 * worker shuts down before running it. Not an outcome: the last note is kept.
 */
export function release<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  lease: Lease,
): Promise<TransitionResult<K>> {
  return transition(config, q, lease, {
    set: `state = 'queued', available_at = n.t, attempt_count = w.attempt_count - 1`,
    note: "keep",
  });
}

interface TransitionSpec {
  /**
   * SET items; may read `w` (the row), `n.t` (now), `t.later` (now + `delayMs`) and the flags
   * `t.out_of_attempts` / `t.past_deadline`.
   */
  readonly set: string;
  /** The note to record, `null` to clear it, or `"keep"`. */
  readonly note: WorkNote | null | "keep";
  /** The delay `t.later` adds to now (default 0). */
  readonly delayMs?: number;
  /** Which policy limit can turn this transition into `failed_permanent`. */
  readonly exhaustible?: "attempts" | "deadline";
}

/**
 * The one fenced statement behind every transition. The CTE locks the row only if the fence
 * holds (token, claimed, unexpired lease — rechecked after any concurrent change), computes
 * the policy flags once, and the UPDATE applies `spec.set` and clears the claim. `gated`
 * writes (`composed.ts`) ride in the same statement and happen only when the move was applied
 * — the caller's record of the outcome, in one round trip instead of a transaction.
 */
async function transition<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  lease: Lease,
  spec: TransitionSpec,
  gated: readonly GatedPart[] = [],
  next?: ClaimOptions<K>,
): Promise<TransitionResult<K>> {
  const note = spec.note === "keep" || spec.note === null ? null : spec.note;
  const p = new StatementParams();
  const now = nowSqlOf(p.add(nowParam(config.clock)));
  const [id, token] = [p.add(lease.itemId), p.add(lease.token)];
  // Every parameter is referenced whatever the transition, so PostgreSQL can type each one.
  const code = p.add(note?.code ?? null);
  const message = p.add(note === null ? null : clipMessage(note.message));
  const keep = p.add(spec.note === "keep");
  const delay = p.add(spec.delayMs ?? 0);
  const moved = `WITH n AS (SELECT ${now} AS t),
     t AS (
       SELECT w.id, w.attempt_count >= w.max_attempts AS out_of_attempts,
              n.t >= w.deadline_at AS past_deadline,
              n.t + ${delay}::float8 * interval '1 millisecond' AS later
       FROM work_items AS w, n
       WHERE w.id = ${id}::uuid AND w.state = 'claimed' AND w.claim_token = ${token}::uuid
         AND w.lease_expires_at > n.t
       FOR UPDATE OF w
     )
     UPDATE work_items AS w
     SET ${spec.set}, claim_token = NULL, claimed_by = NULL, lease_expires_at = NULL,
         updated_at = n.t,
         last_code = CASE WHEN ${keep}::boolean THEN w.last_code ELSE ${code}::text END,
         last_message = CASE WHEN ${keep}::boolean THEN w.last_message ELSE ${message}::text END
     FROM t, n
     WHERE w.id = t.id
     RETURNING ${config.table.select("w")}, t.out_of_attempts, t.past_deadline`;
  const claiming =
    next === undefined
      ? null
      : claimCtes(config, p, now, next, { gate: "moved", as: "next_", prefix: "next_" });
  let res;
  try {
    res = await q.query(composeGated(p, moved, gated, "moved", claiming), p.values);
  } catch (err) {
    // Another claimer took the lane the next claim chose: the whole statement rolled back, so
    // the transition is made again alone and the caller claims as usual.
    if (claiming !== null && isLaneRace(err)) return transition(config, q, lease, spec, gated);
    throw err;
  }
  const first = res.rows[0];
  if (first === undefined) return { outcome: "stale", why: await staleReason(config, q, lease) };
  const item = config.table.decode(first);
  const row = movedFlags.decode(first);
  const raw = rowObject(first, "work_items (transition)");
  let exhausted: ExhaustionCause | null = null;
  if (item.state === "failed_permanent" && spec.exhaustible !== undefined) {
    if (row.pastDeadline) exhausted = "deadline";
    else if (spec.exhaustible === "attempts" && row.outOfAttempts) exhausted = "attempts";
  }
  if (claiming === null) return { outcome: "applied", item, exhausted };
  const claimed = raw.next_id === null ? null : claimOfRow(config, raw, claiming);
  return { outcome: "applied", item, exhausted, next: claimed };
}

/** Explains a refused change. Diagnostic only: the refusal itself was decided atomically. */
export async function staleReason<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  lease: Lease,
): Promise<StaleReason> {
  const res = await q.query(
    `SELECT w.state, w.claim_token IS NOT DISTINCT FROM $3::uuid AS ours,
            COALESCE(w.lease_expires_at > ${nowSql(1)}, false) AS live
     FROM work_items AS w WHERE w.id = $2::uuid`,
    [nowParam(config.clock), lease.itemId, lease.token],
  );
  const row = staleRow.decodeFirst(res.rows);
  if (row === undefined) return "not_found";
  if (row.state !== "claimed") return "not_claimed";
  // Still this claim's token: the fence failed on the lease (live only if time moved back).
  return row.ours && !row.live ? "lease_expired" : "claimed_elsewhere";
}
