/**
 * The Namespace a pass is about, as a part of another statement: the worker's claim reads it
 * beside the claimed work item (`queue/attach.ts`), so a pass starts without a round trip of
 * its own. The column names and their decoding are this module's; callers only say which ID
 * expression to look up and which columns to read beside it.
 */
import { namespacesTable, type NamespaceRecord } from "./namespaces.js";

/** How the Namespace's columns are renamed in the result (beside the work item's). */
const AS = "ns_";
/** The alias of the Namespace row. */
const ALIAS = "t";

/** A Namespace read inside another statement, and how to read it back from the row. */
export interface NamespacePart {
  /** The SQL expression of the Namespace's ID, for the columns read beside it. */
  readonly id: string;
  /**
   * `SELECT <columns>, <beside> FROM namespaces … WHERE id = <id>`: at most one row. The
   * select-list columns `beside` may read the Namespace through {@link NamespacePart.id};
   * their names must not start with `ns_`.
   */
  sql(beside?: string): string;
  /**
   * The Namespace in `row`, tombstones included; `undefined` when it found none (every column
   * null, or absent when the statement read nothing at all).
   */
  read(row: Readonly<Record<string, unknown>>): NamespaceRecord | undefined;
}

/**
 * The Namespace whose ID is the SQL expression `id`. By primary key alone, the only index its
 * one condition can use, so the lookup stays one row whatever the statistics (with
 * `deleted_at IS NULL` here too, a fresh table's planner chose the partial listing index and
 * read all of it): the caller leaves tombstones out.
 */
export function namespaceById(id: string): NamespacePart {
  return {
    id: `${ALIAS}.id`,
    sql: (
      beside,
    ) => `SELECT ${namespacesTable.select(ALIAS, AS)}${beside === undefined ? "" : `,\n  ${beside}`}
  FROM namespaces AS ${ALIAS} WHERE ${ALIAS}.id = ${id}`,
    read: (row) =>
      (row[`${AS}id`] ?? null) === null ? undefined : namespacesTable.decode(row, AS),
  };
}
