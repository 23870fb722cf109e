/**
 * Keyset paging over IAM tables, oldest first by `(created_at, id)` — the same order and
 * cursor shape as the store's Namespace listing, so the API pages every collection alike.
 */
import type { Codec, Columns, RowOf, Table } from "../store/columns.js";
import type { Queryable, SqlParam } from "../store/db.js";

/** Where a page ended; pass it back as `after`. */
export interface PageCursor {
  readonly createdAt: Date;
  readonly id: string;
}

export interface PageOptions {
  /** Page size, 1–1000. */
  readonly limit: number;
  readonly after?: PageCursor | undefined;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Set when more rows may follow. */
  readonly next: PageCursor | null;
}

/** A filter: an SQL condition over the table's columns using `$1…$n`, and its parameters. */
export interface PageFilter {
  readonly where: string;
  readonly params: readonly SqlParam[];
}

/**
 * One page of `table` rows matching `filter`. The filter's placeholders come first; the
 * cursor and limit are appended after them.
 */
export async function listPage<
  C extends Columns & { readonly createdAt: Codec<Date>; readonly id: Codec<string> },
>(q: Queryable, table: Table<C>, filter: PageFilter, opts: PageOptions): Promise<Page<RowOf<C>>> {
  if (!Number.isInteger(opts.limit) || opts.limit < 1 || opts.limit > 1000) {
    throw new RangeError(`listPage: limit must be an integer 1–1000, got ${opts.limit}`);
  }
  const n = filter.params.length;
  const res = await q.query(
    `SELECT ${table.select()} FROM ${table.name}
     WHERE (${filter.where})
       AND ($${n + 1}::timestamptz IS NULL OR (created_at, id) > ($${n + 1}::timestamptz, $${n + 2}::text))
     ORDER BY created_at, id
     LIMIT $${n + 3}`,
    [...filter.params, opts.after?.createdAt ?? null, opts.after?.id ?? null, opts.limit + 1],
  );
  const rows = res.rows.map((r) => table.decode(r));
  const items = rows.slice(0, opts.limit);
  const last = items[items.length - 1];
  const next =
    rows.length > opts.limit && last !== undefined
      ? { createdAt: last.createdAt, id: last.id }
      : null;
  return { items, next };
}
