/**
 * Aggregates over live Namespaces for the metrics gauges, computed when scraped (so every
 * process serving `/metrics` reports the same): counts by placement, status and reason, and
 * how long the oldest tenant has waited in each status.
 */
import { NAMESPACE_STATUSES } from "../domain/placement/namespace-status.js";
import { defineRow, numeric, oneOf, text } from "./columns.js";
import type { Queryable } from "./db.js";

const countRow = defineRow("namespaces (placement counts)", {
  mode: text,
  status: oneOf(NAMESPACE_STATUSES),
  reason: text,
  n: numeric,
});

const ageRow = defineRow("namespaces (oldest in status)", {
  status: oneOf(NAMESPACE_STATUSES),
  age: numeric,
});

/**
 * Live Namespaces counted by mode (`preprovisioned` for `preprovisionedId`, else the placement
 * mode), status and status code (`""` without one).
 */
export async function namespacePlacementCounts(q: Queryable, preprovisionedId: string | null) {
  const res = await q.query(
    `SELECT CASE WHEN id = $1 THEN 'preprovisioned' ELSE placement_mode END AS mode,
            status, COALESCE(status_code, '') AS reason, count(*) AS n
       FROM namespaces WHERE deleted_at IS NULL GROUP BY 1, 2, 3`,
    [preprovisionedId],
  );
  return countRow.decodeAll(res.rows);
}

/**
 * For each status but `ready` that some live Namespace is in, the seconds the longest-waiting
 * one has been in it (since its status reason last changed, or its record's last update).
 */
export async function oldestWaitingAges(q: Queryable) {
  const res = await q.query(
    `SELECT status, EXTRACT(EPOCH FROM now() - min(COALESCE(status_since, updated_at))) AS age
       FROM namespaces WHERE deleted_at IS NULL AND status <> 'ready' GROUP BY status`,
  );
  return ageRow.decodeAll(res.rows);
}
