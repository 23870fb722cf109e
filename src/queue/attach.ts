/**
 * A subquery read beside a work item (`ClaimOptions.attach`): in the claim's own statement, or
 * — for a claim made without it — over the item's row afterwards, with the same text. Either
 * way the subquery sees the item as `c`, so what it reads cannot depend on how it was read.
 */
import { rowObject } from "../store/columns.js";
import type { Queryable } from "../store/db.js";

/** The columns of an attached subquery: every one `null` when it found nothing. */
export type AttachedRow = Readonly<Record<string, unknown>>;

/**
 * The subquery `attach` (at most one row, over the work item `c`) as the claim reads it
 * (`claim.ts`), for the item `itemId`; an empty row when the item or the subquery found
 * nothing.
 */
export async function readAttached(
  q: Queryable,
  itemId: string,
  attach: string,
): Promise<AttachedRow> {
  const res = await q.query(
    `SELECT a.* FROM work_items AS c LEFT JOIN LATERAL (${attach} LIMIT 1) AS a ON true
     WHERE c.id = $1::uuid`,
    [itemId],
  );
  const row = res.rows[0];
  return row === undefined ? {} : rowObject(row, "attached subquery");
}
