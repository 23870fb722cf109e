/**
 * The reads behind asking for Namespace passes (lifecycle.md §1): the status of one live
 * Namespace, and the live Namespaces page by page for the periodic resync. Decoded by the
 * `namespaces` table's own column codecs.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { LIVE_STATUSES, type NamespaceStatus } from "../domain/placement/namespace-status.js";
import { defineTable } from "./columns.js";
import type { Queryable } from "./db.js";
import { namespacesTable } from "./namespaces.js";

const { id, status } = namespacesTable.columns;
const idColumn = defineTable("namespaces", { id });
const statusColumn = defineTable("namespaces", { status });
const idStatusColumns = defineTable("namespaces", { id, status });

/** The status of the Namespace `id`; `undefined` when it is tombstoned or unknown. */
export async function statusOfNamespace(
  q: Queryable,
  namespaceId: NamespaceId,
): Promise<NamespaceStatus | undefined> {
  const res = await q.query(
    `SELECT ${statusColumn.select()} FROM namespaces WHERE id = $1 AND deleted_at IS NULL`,
    [namespaceId],
  );
  return statusColumn.decodeFirst(res.rows)?.status;
}

/** The status of each Namespace of `ids` that is not tombstoned (unknown ones are left out). */
export async function statusesOfNamespaces(
  q: Queryable,
  ids: readonly NamespaceId[],
): Promise<Map<NamespaceId, NamespaceStatus>> {
  if (ids.length === 0) return new Map();
  const res = await q.query(
    `SELECT ${idStatusColumns.select()} FROM namespaces
      WHERE id = ANY($1::text[]) AND deleted_at IS NULL`,
    [ids],
  );
  return new Map(
    res.rows.map((raw) => {
      const row = idStatusColumns.decode(raw);
      return [row.id, row.status];
    }),
  );
}

/**
 * Up to `limit` IDs of live Namespaces (provisioning, ready or degraded; never failed,
 * deleting or tombstoned) after `after`, in ID order: one page of the resync.
 */
export async function liveNamespaceIds(
  q: Queryable,
  after: string,
  limit: number,
): Promise<readonly NamespaceId[]> {
  const res = await q.query(
    `SELECT ${idColumn.select()} FROM namespaces
      WHERE deleted_at IS NULL AND status = ANY($3::text[]) AND id > $1
      ORDER BY id LIMIT $2`,
    [after, limit, [...LIVE_STATUSES]],
  );
  return res.rows.map((row) => idColumn.decode(row).id);
}
