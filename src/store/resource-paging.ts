/**
 * The reads every per-Namespace resource table (configurations, secrets, service_accounts,
 * agents) has: a row by Namespace and ID, and keyset paging, oldest first by (created_at, id),
 * one row more than the page to know whether another page follows. The table name comes from
 * a definition, never from input.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import {
  defineRow,
  integer,
  text,
  type Codec,
  type Columns,
  type RowOf,
  type Table,
} from "./columns.js";

/** An ID with the count of every row the statement matched (`count(*) OVER ()`). */
const idCountRow = defineRow("(id, count)", { id: text, n: integer });
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

/** A per-Namespace resource table's lookup by ID and its pages. */
export interface NamespaceRows<R> {
  /** The row `id` of Namespace `namespaceId` (none of another), optionally locked for update. */
  get(
    q: Queryable,
    namespaceId: NamespaceId,
    id: string,
    opts?: { readonly forUpdate?: boolean },
  ): Promise<R | undefined>;
  /** One page of the Namespace's rows, oldest first. */
  list(q: Queryable, namespaceId: NamespaceId, opts: ResourcePageOptions): Promise<ResourcePage<R>>;
}

/** The reads of `table`, a table with `namespace_id`, `id` and `created_at` columns. */
export function namespaceRows<
  C extends Columns & { readonly createdAt: Codec<Date>; readonly id: Codec<string> },
>(table: Table<C>): NamespaceRows<RowOf<C>> {
  const columns = table.select();
  return {
    async get(q, namespaceId, id, opts = {}) {
      const lock = opts.forUpdate === true ? " FOR UPDATE" : "";
      const res = await q.query(
        `SELECT ${columns} FROM ${table.name} WHERE namespace_id = $1 AND id = $2${lock}`,
        [namespaceId, id],
      );
      return table.decodeFirst(res.rows);
    },
    list: (q, namespaceId, opts) => pageOf(q, table, namespaceId, opts),
  };
}

/** The first `limit` IDs of `table`'s rows of `namespaceId`, oldest first. */
export async function firstIds(
  q: Queryable,
  tableName: "agents" | "configurations" | "secrets" | "service_accounts",
  namespaceId: NamespaceId,
  limit: number,
): Promise<{ readonly count: number; readonly ids: readonly string[] }> {
  const res = await q.query(
    `SELECT id, (count(*) OVER ())::int AS n FROM ${tableName}
     WHERE namespace_id = $1 ORDER BY created_at, id LIMIT $2`,
    [namespaceId, limit],
  );
  const rows = idCountRow.decodeAll(res.rows);
  return { count: rows[0]?.n ?? 0, ids: rows.map((r) => r.id) };
}
