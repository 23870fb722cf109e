/**
 * The lookup of one row by its primary key `id`, for tables keyed that way (the IAM tables,
 * Agents): the whole row, or `undefined` when there is none.
 */
import type { Codec, Columns, RowOf, Table } from "./columns.js";
import type { Queryable } from "./db.js";

/** The row of `table` whose `id` is `id`, or `undefined`. */
export async function rowById<C extends Columns & { readonly id: Codec<string> }>(
  q: Queryable,
  table: Table<C>,
  id: string,
): Promise<RowOf<C> | undefined> {
  const res = await q.query(`SELECT ${table.select()} FROM ${table.name} WHERE id = $1`, [id]);
  return table.decodeFirst(res.rows);
}
