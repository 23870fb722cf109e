/**
 * Claiming work: the oldest eligible item whose lane (subject) is free, with a fresh lease.
 */
import { randomUUID } from "node:crypto";
import { StatementParams, withClause, type Cte } from "../store/composed.js";
import { defineRow, nullable, rowObject, timestamp } from "../store/columns.js";
import type { Db, Queryable } from "../store/db.js";
import { isSqlError, SQLSTATE } from "../store/sql-errors.js";
import { nowParam, nowSqlOf } from "./clock.js";
import type { Claim, QueueConfig } from "./work-items.js";

export interface ClaimOptions<K extends string> {
  /** Who holds the claim (worker name and process), for operators and diagnostics. */
  readonly owner: string;
  /** Only these kinds (default: every kind of the queue). */
  readonly kinds?: readonly K[];
  /**
   * A subquery over the claimed row `c` (its `work_items` columns) returning at most one row,
   * read in the claim's own statement rather than in a round trip after it: its columns come
   * back in {@link Claim.attached}, all null when it found nothing. Its column names must not
   * collide with `work_items`' (rename them: `Table.select(alias, as)`). It is run as a lookup
   * per claimed row (`LIMIT 1` keeps the planner from turning it into a join over the whole
   * table when statistics are missing).
   */
  readonly attach?: string;
}

/**
 * The oldest item matching `state` (over alias `w`) whose lane has no other claim, locked
 * (`SKIP LOCKED`: rows another claimer holds are passed over). Used for expired leases, which
 * follow their own partial index (`work_items_leases`), few at any time. The oldest queued item
 * is found by `work_items_oldest_queued` (migration 0011), the same query planned with sorts
 * and bitmap scans ruled out: a burst of queued work always outruns the statistics, and
 * estimating one queued row the planner read and sorted every queued item for each claim
 * (2.2 ms a claim at 2,000 queued: a burst cost O(n²)).
 *
 * `state` compares with the claim's now as an expression, not a column of a joined CTE: joined,
 * the plan depended on statistics.
 */
function oldestEligible(state: string, kinds: string): string {
  return `SELECT w.id, w.available_at, w.created_at FROM work_items AS w
           WHERE ${state} AND w.kind = ANY(${kinds}::text[])
             AND NOT EXISTS (
               SELECT 1 FROM work_items AS o
               WHERE o.subject = w.subject AND o.state = 'claimed' AND o.id <> w.id)
           ORDER BY w.available_at, w.created_at, w.id
           LIMIT 1
           FOR UPDATE OF w SKIP LOCKED`;
}

/** Two claimers racing for one lane: the loser's statement fails and it simply looks again. */
const LANE_RACE_ROUNDS = 8;

/**
 * Claims one item, or returns `null` when nothing is eligible now.
 *
 * Eligible: a `queued` item whose `available_at` has come, or a `claimed` item whose lease has
 * expired (its worker stalled or was killed), and whose subject has no other claimed item.
 * The oldest by `available_at` wins; rows another claimer is locking are skipped (`FOR UPDATE
 * SKIP LOCKED`), so claimers never wait on each other. The claim spends an attempt, sets a new
 * token (which fences out the previous holder of a reclaimed item) and a lease of
 * `policy.leaseMs`.
 *
 * Lanes are guaranteed by the database, not by this query alone: the partial unique index
 * `work_items_one_claim_per_lane` lets only one claim per subject commit. When two claimers
 * pick different items of one free lane at the same instant, the second statement fails with
 * a unique violation on that index and this function looks again; the lane is then busy, so
 * it takes something else. That is why `claim` needs the `Db` itself, outside any caller's
 * transaction — each attempt is its own single-statement transaction.
 *
 * The claim's UPDATE re-checks that its candidate is still eligible. The oldest queued item is
 * found and locked by `work_items_oldest_queued`, a VOLATILE function, which reads with a
 * snapshot of its own, taken after the statement's. An ended item requeued between the two
 * (the worker's resync requeues succeeded items while its slots claim) is found queued by the
 * function while the UPDATE still reads the ended row; unguarded, it wrote `claimed` over that
 * row, `finished_at` kept, and PostgreSQL refused it (`work_items_finished_consistent`: 67
 * failed claims in bench P9's resync drain). Guarded, the UPDATE passes the row over, and a
 * candidate passed over makes this function look again with a new statement (a new snapshot).
 *
 * A reclaimed item whose attempts were already all spent comes back with
 * `lease.attempt > item.maxAttempts`: its previous holders died mid-attempt. The caller should
 * then fail it permanently instead of running it again (see `isExhausted`).
 */
export async function claim<K extends string>(
  config: QueueConfig<K>,
  db: Db,
  opts: ClaimOptions<K>,
): Promise<Claim<K> | null> {
  for (let round = 0; round < LANE_RACE_ROUNDS; round += 1) {
    const p = new StatementParams();
    const claiming = claimCtes(config, p, nowSqlOf(p.add(nowParam(config.clock))), opts);
    try {
      const res = await db.query(
        `${withClause(claiming.ctes)}
         SELECT r.*, EXISTS (SELECT 1 FROM ${claiming.candidate}) AS occ_had_candidate
         FROM (VALUES (true)) AS one (x) LEFT JOIN ${claiming.row} AS r ON true`,
        p.values,
      );
      const first = res.rows[0];
      const row = first === undefined ? undefined : rowObject(first, "work_items (claim)");
      if (row !== undefined && row.id !== null) return claimOfRow(config, row, claiming);
      // A candidate passed over (see the `claimed` CTE): look again with a fresh snapshot.
      if (row?.occ_had_candidate === true) continue;
      return null;
    } catch (err) {
      if (isLaneRace(err)) continue;
      throw err;
    }
  }
  return null;
}

/** The unique violation two claimers of one free lane cause (see {@link claim}). */
export function isLaneRace(err: unknown): boolean {
  return isSqlError(err, SQLSTATE.uniqueViolation, "work_items_one_claim_per_lane");
}

/** A claim's CTEs inside a larger statement: see {@link claimCtes}. */
export interface ClaimCtes {
  readonly ctes: readonly Cte[];
  /** The CTE with the claimed row (none when nothing was eligible). */
  readonly row: string;
  /** The CTE with the chosen candidate (none when nothing was eligible). */
  readonly candidate: string;
  /** The claimed row's work item columns are renamed `<as>…` (`Table.select`). */
  readonly as: string | undefined;
  readonly token: string;
  readonly attached: boolean;
}

/**
 * The claim (see {@link claim}) as CTEs of a statement, with `attach` joined to the claimed
 * row; its parameters are added to `p`, and `now` is the statement's time expression. With
 * `gate` (the name of an earlier CTE), nothing is claimed unless that CTE has a row: a settle
 * and the slot's next claim in one statement (`transitions.ts`), where a refused settle must
 * not claim. With `as`, the claimed row's work item columns are renamed `<as>…`, so that they
 * cannot collide with the gate's. CTE names start with `prefix`.
 */
export function claimCtes<K extends string>(
  config: QueueConfig<K>,
  p: StatementParams,
  now: string,
  opts: ClaimOptions<K>,
  chained: { readonly gate: string; readonly as: string; readonly prefix: string } | null = null,
): ClaimCtes {
  const token = randomUUID();
  const kinds = p.add([...(opts.kinds ?? config.kinds)]);
  const [tokenP, owner, leaseMs] = [p.add(token), p.add(opts.owner), p.add(config.policy.leaseMs)];
  const x = chained?.prefix ?? "";
  const gated = chained === null ? "" : `WHERE EXISTS (SELECT 1 FROM ${chained.gate})`;
  const ctes: Cte[] = [
    {
      name: `${x}queued`,
      sql: `SELECT q.id, q.available_at, q.created_at
            FROM work_items_oldest_queued(${now}, ${kinds}::text[]) AS q`,
    },
    {
      name: `${x}expired`,
      sql: oldestEligible(`w.state = 'claimed' AND w.lease_expires_at <= ${now}`, kinds),
    },
    {
      name: `${x}candidate`,
      sql: `SELECT c.id FROM (SELECT * FROM ${x}queued UNION ALL SELECT * FROM ${x}expired) AS c
            ${gated}
            ORDER BY c.available_at, c.created_at, c.id
            LIMIT 1`,
    },
    {
      name: `${x}claimed`,
      sql: `UPDATE work_items AS w
            SET state = 'claimed', claim_token = ${tokenP}::uuid, claimed_by = ${owner},
                lease_expires_at = ${now} + ${leaseMs}::float8 * interval '1 millisecond',
                attempt_count = w.attempt_count + 1, updated_at = ${now}
            FROM ${x}candidate AS k
            WHERE w.id = k.id
              AND (w.state = 'queued' OR (w.state = 'claimed' AND w.lease_expires_at <= ${now}))
            RETURNING ${config.table.select("w")}`,
    },
    {
      name: `${x}row`,
      sql:
        opts.attach === undefined
          ? `SELECT ${config.table.select("c", chained?.as)} FROM ${x}claimed AS c`
          : `SELECT ${config.table.select("c", chained?.as)}, a.*
             FROM ${x}claimed AS c LEFT JOIN LATERAL (${opts.attach} LIMIT 1) AS a ON true`,
    },
  ];
  return {
    ctes,
    row: `${x}row`,
    candidate: `${x}candidate`,
    as: chained?.as,
    token,
    attached: opts.attach !== undefined,
  };
}

/** The claim a row of {@link claimCtes} describes. */
export function claimOfRow<K extends string>(
  config: QueueConfig<K>,
  row: Readonly<Record<string, unknown>>,
  claiming: ClaimCtes,
): Claim<K> {
  const item = config.table.decode(row, claiming.as);
  if (item.leaseExpiresAt === null) throw new Error("claim: claimed row without a lease");
  return {
    item,
    ...(claiming.attached ? { attached: row } : {}),
    lease: {
      itemId: item.id,
      token: claiming.token,
      attempt: item.attemptCount,
      pendingCount: item.pendingCount,
      expiresAt: item.leaseExpiresAt,
    },
  };
}

/** True when a claim's attempt is past the item's budget (its earlier holders died). */
export function isExhausted(claimed: Claim<string>): boolean {
  return claimed.lease.attempt > claimed.item.maxAttempts;
}

const wakeRow = defineRow("work_items (next wake)", { at: nullable(timestamp) });

/**
 * The earliest time something may become claimable, or `null` when there is no open work: a
 * queued item's `available_at` on a free lane, or a claimed item's lease expiry. A worker
 * sleeps until then (or until notified) instead of polling blindly. Queued items behind a
 * claimed one are left out — they become claimable when that claim is settled (its holder
 * claims again) or its lease expires (already counted) — so a busy lane never reads as
 * "due now" and never makes a worker spin.
 */
export async function nextWakeAt<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  kinds: readonly K[] = config.kinds,
): Promise<Date | null> {
  const res = await q.query(
    `SELECT LEAST(
       (SELECT min(w.available_at) FROM work_items AS w
        WHERE w.state = 'queued' AND w.kind = ANY($1::text[])
          AND NOT EXISTS (SELECT 1 FROM work_items AS o
                          WHERE o.subject = w.subject AND o.state = 'claimed')),
       (SELECT min(lease_expires_at) FROM work_items
        WHERE state = 'claimed' AND kind = ANY($1::text[]))
     ) AS at`,
    [kinds],
  );
  return wakeRow.decodeFirst(res.rows)?.at ?? null;
}
