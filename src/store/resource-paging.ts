/**
 * Keyset paging over the per-Namespace resource tables (configurations, secrets,
 * service_accounts): oldest first by (created_at, id), one row more than the page to know
 * whether another page follows. The table name comes from a definition, never from input.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import type { Codec, Columns, RowOf, Table } from "./columns.js";
import type { Queryable } from "./db.js";
import { listPage, type Page, type PageCursor, type PageOptions } from "./paging.js";

export type ResourceCursor = PageCursor;
export type ResourcePageOptions = PageOptions;
export type ResourcePage<R> = Page<R>;

/** One page of `table`'s rows of `namespaceId` (the shared keyset query of `paging.ts`). */
export function pageOf<
  C extends Columns & { readonly createdAt: Codec<Date>; readonly id: Codec<string> },
>(
  q: Queryable,
  table: Table<C>,
  namespaceId: NamespaceId,
  opts: ResourcePageOptions,
): Promise<ResourcePage<RowOf<C>>> {
  return listPage(q, table, { where: "namespace_id = $1", params: [namespaceId] }, opts);
}

/** The first `limit` IDs of `table`'s rows of `namespaceId`, oldest first. */
export async function firstIds(
  q: Queryable,
  tableName: "configurations" | "secrets" | "service_accounts",
  namespaceId: NamespaceId,
  limit: number,
): Promise<{ readonly count: number; readonly ids: readonly string[] }> {
  const res = await q.query<{ id: string; n: number }>(
    `SELECT id, (count(*) OVER ())::int AS n FROM ${tableName}
     WHERE namespace_id = $1 ORDER BY created_at, id LIMIT $2`,
    [namespaceId, limit],
  );
  return { count: res.rows[0]?.n ?? 0, ids: res.rows.map((r) => r.id) };
}
