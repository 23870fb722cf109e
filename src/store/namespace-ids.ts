/**
 * Which platform Namespace IDs the database knows — live, deleting or tombstoned (rows are
 * never purged). The orphan report (domain/placement/orphans.ts) asks it about the IDs the
 * cluster's tenant markers name: an ID with no row at all is unknown.
 */
import { defineRow, text } from "./columns.js";
import type { Queryable } from "./db.js";

const knownRow = defineRow("namespaces (known id)", { id: text });

/** The subset of `ids` that has a row in `namespaces`. */
export async function knownNamespaceIds(
  q: Queryable,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const res = await q.query("SELECT id FROM namespaces WHERE id = ANY($1::text[])", [ids]);
  return new Set(knownRow.decodeAll(res.rows).map((r) => r.id));
}
