/**
 * Keyset paging. A page query fetches one row more than the page — that row only tells
 * whether another page follows — and the page's last row is the cursor to continue after.
 * {@link listPage} is the whole query for tables paged oldest first by `(created_at, id)`
 * (the IAM tables); listings with their own order or filters (Namespaces, the audit trail)
 * write their query and share {@link checkPageLimit} and {@link keysetPage}.
 */
import type { Codec, Columns, RowOf, Table } from "./columns.js";
import type { Queryable, SqlParam } from "./db.js";

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

/** Throws `RangeError`, naming `fn`, unless `limit` is an integer 1–1000. */
export function checkPageLimit(fn: string, limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new RangeError(`${fn}: limit must be an integer 1–1000, got ${limit}`);
  }
}

/**
 * The page in `rows` — the first `limit + 1` rows of a keyset query — and, when a row beyond
 * the page came back, the cursor `cursorOf` makes of the page's last row.
 */
export function keysetPage<T, C>(
  rows: readonly T[],
  limit: number,
  cursorOf: (last: T) => C,
): { readonly items: T[]; readonly next: C | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const next = rows.length > limit && last !== undefined ? cursorOf(last) : null;
  return { items, next };
}

/**
 * One page of `table` rows matching `filter`, oldest first by `(created_at, id)`. The
 * filter's placeholders come first; the cursor and limit are appended after them.
 */
export async function listPage<
  C extends Columns & { readonly createdAt: Codec<Date>; readonly id: Codec<string> },
>(q: Queryable, table: Table<C>, filter: PageFilter, opts: PageOptions): Promise<Page<RowOf<C>>> {
  checkPageLimit("listPage", opts.limit);
  const n = filter.params.length;
  const res = await q.query(
    `SELECT ${table.select()} FROM ${table.name}
     WHERE (${filter.where})
       AND ($${n + 1}::timestamptz IS NULL OR (created_at, id) > ($${n + 1}::timestamptz, $${n + 2}::text))
     ORDER BY created_at, id
     LIMIT $${n + 3}`,
    [...filter.params, opts.after?.createdAt ?? null, opts.after?.id ?? null, opts.limit + 1],
  );
  return keysetPage(
    res.rows.map((r) => table.decode(r)),
    opts.limit,
    (last) => ({ createdAt: last.createdAt, id: last.id }),
  );
}

/**
 * The pages of `table`'s rows whose `column` equals one owner's ID `O` (a principal's API keys,
 * an Agent's revisions), oldest first by `(created_at, id)`.
 */
export function pagesOf<
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the owner's ID type the caller names
  O extends string,
  C extends Columns & { readonly createdAt: Codec<Date>; readonly id: Codec<string> },
>(
  table: Table<C>,
  column: "principal_id" | "agent_id",
): (q: Queryable, owner: O, opts: PageOptions) => Promise<Page<RowOf<C>>> {
  const where = `${column} = $1`;
  return (q, owner, opts) => listPage(q, table, { where, params: [owner] }, opts);
}
