/** Queue depth and age, for `/metrics` (quality.md §5: "queue depth and age"). */
import { defineRow, integer, numeric, text } from "../store/columns.js";
import type { Queryable } from "../store/db.js";
import { nowParam, nowSql } from "./clock.js";
import type { QueueConfig } from "./work-items.js";

export interface KindDepth<K extends string> {
  readonly kind: K;
  /** Queued items, available now or later. */
  readonly queued: number;
  /** Queued items whose `available_at` has come: waiting only for a free worker or lane. */
  readonly ready: number;
  readonly claimed: number;
  /** Claimed items whose lease has expired: a worker died or stalled holding them. */
  readonly expiredLeases: number;
  /** How long the oldest ready item has been waiting, in ms (0 when none is). */
  readonly oldestReadyAgeMs: number;
}

const depthRow = defineRow("work_items (depth)", {
  kind: text,
  queued: integer,
  ready: integer,
  claimed: integer,
  expired: integer,
  oldestMs: numeric,
});

/** One entry per kind of the queue, zeros included, in vocabulary order. */
export async function queueDepth<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
): Promise<readonly KindDepth<K>[]> {
  const res = await q.query(
    `WITH n AS (SELECT ${nowSql(1)} AS t)
     SELECT w.kind,
       (count(*) FILTER (WHERE w.state = 'queued'))::int AS queued,
       (count(*) FILTER (WHERE w.state = 'queued' AND w.available_at <= n.t))::int AS ready,
       (count(*) FILTER (WHERE w.state = 'claimed'))::int AS claimed,
       (count(*) FILTER (WHERE w.state = 'claimed' AND w.lease_expires_at <= n.t))::int AS expired,
       COALESCE(EXTRACT(EPOCH FROM n.t - min(w.available_at)
         FILTER (WHERE w.state = 'queued' AND w.available_at <= n.t)) * 1000, 0)::float8 AS oldest_ms
     FROM work_items AS w, n
     WHERE w.state IN ('queued', 'claimed') AND w.kind = ANY($2::text[])
     GROUP BY w.kind, n.t`,
    [nowParam(config.clock), config.kinds],
  );
  const byKind = new Map(depthRow.decodeAll(res.rows).map((r) => [r.kind, r]));
  return config.kinds.map((kind) => {
    const r = byKind.get(kind);
    return {
      kind,
      queued: r?.queued ?? 0,
      ready: r?.ready ?? 0,
      claimed: r?.claimed ?? 0,
      expiredLeases: r?.expired ?? 0,
      oldestReadyAgeMs: r?.oldestMs ?? 0,
    };
  });
}
