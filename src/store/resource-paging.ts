/**
 * Keyset paging over the per-Namespace resource tables (configurations, secrets,
 * service_accounts): oldest first by (created_at, id), one row more than the page to know
 * whether another page follows. The table name comes from a definition, never from input.
 */
import type { NamespaceId } from "../domain/ids.js";
import type { Columns, RowOf, Table } from "./columns.js";
import type { Queryable } from "./db.js";

export interface ResourceCursor {
  readonly createdAt: Date;
  readonly id: string;
}

export interface ResourcePageOptions {
  /** 1–1000. */
  readonly limit: number;
  readonly after?: ResourceCursor | undefined;
}

export interface ResourcePage<R> {
  readonly items: readonly R[];
  readonly next: ResourceCursor | null;
}

/** One page of `table`'s rows of `namespaceId`. */
export async function pageOf<C extends Columns>(
  q: Queryable,
  table: Table<C>,
  namespaceId: NamespaceId,
  opts: ResourcePageOptions,
): Promise<ResourcePage<RowOf<C> & { readonly createdAt: Date; readonly id: string }>> {
  if (!Number.isInteger(opts.limit) || opts.limit < 1 || opts.limit > 1000) {
    throw new RangeError(`${table.name}: limit must be an integer 1–1000, got ${opts.limit}`);
  }
  const res = await q.query(
    `SELECT ${table.select()} FROM ${table.name}
     WHERE namespace_id = $1
       AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::text))
     ORDER BY created_at, id
     LIMIT $4`,
    [namespaceId, opts.after?.createdAt ?? null, opts.after?.id ?? null, opts.limit + 1],
  );
  const rows = res.rows.map(
    (r) => table.decode(r) as RowOf<C> & { readonly createdAt: Date; readonly id: string },
  );
  const items = rows.slice(0, opts.limit);
  const last = items[items.length - 1];
  const next =
    rows.length > opts.limit && last !== undefined
      ? { createdAt: last.createdAt, id: last.id }
      : null;
  return { items, next };
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
