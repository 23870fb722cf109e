/**
 * The reads of `namespaces` that other owners need, so that no statement on the table is
 * written outside src/store: the IDs a watched change touches, a lookup by name, the share
 * lock a tenant write takes, the listing IAM filters by its own condition, and the checks IAM
 * embeds in its one statement ({@link liveNamespaceLockedPart}).
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { bool, defineRow, namespaceIdColumn } from "./columns.js";
import type { Queryable, SqlCondition } from "./db.js";

const idRow = defineRow("namespaces (id)", { id: namespaceIdColumn });
const byNameRow = defineRow("namespaces (by name)", { id: namespaceIdColumn, retired: bool });

/**
 * A boolean SQL expression: the live Namespace whose ID is `param` (a `$n::text` placeholder of
 * the caller's statement) exists, share-locked until the caller's transaction ends, so that
 * neither a tombstone nor a DELETE can slip between the check and the caller's insert. IAM
 * embeds it in its own checks statement (one round trip).
 */
export function liveNamespaceLockedPart(param: string): string {
  return `EXISTS (SELECT 1 FROM (SELECT id FROM namespaces
            WHERE id = ${param} AND deleted_at IS NULL FOR SHARE) n)`;
}

/**
 * The live Namespaces (aliased `n`) for which `condition` holds, in one statement; the
 * condition's parameters are numbered from $1 (IAM's authorization filter).
 */
export async function liveNamespaceIdsWhere(
  q: Queryable,
  condition: SqlCondition,
): Promise<NamespaceId[]> {
  const res = await q.query(
    `SELECT n.id FROM namespaces n WHERE n.deleted_at IS NULL AND ${condition.sql}`,
    [...condition.params],
  );
  return idRow.decodeAll(res.rows).map((r) => r.id);
}

/**
 * The live Namespaces among `ids`, or bound to (or selecting) one of the Kubernetes namespaces
 * `names`: the tenants a burst of watched changes touches.
 */
export async function liveNamespaceIdsTouching(
  q: Queryable,
  ids: readonly string[],
  names: readonly string[],
): Promise<NamespaceId[]> {
  const res = await q.query(
    `SELECT id FROM namespaces
      WHERE deleted_at IS NULL
        AND (id = ANY($1::text[]) OR kubernetes_namespace = ANY($2::text[])
             OR existing_namespace = ANY($2::text[]))`,
    [ids, names],
  );
  return idRow.decodeAll(res.rows).map((r) => r.id);
}

/** The Namespace named `name` (live or tombstoned), with whether it is tombstoned. */
export async function namespaceByName(
  q: Queryable,
  name: string,
): Promise<{ readonly id: NamespaceId; readonly retired: boolean } | undefined> {
  const res = await q.query(
    "SELECT id, deleted_at IS NOT NULL AS retired FROM namespaces WHERE name = $1",
    [name],
  );
  return byNameRow.decodeFirst(res.rows);
}

/**
 * Share-locks the live Namespace `id` until the transaction ends (nothing when there is none):
 * DELETE /namespaces takes the row FOR UPDATE, so it waits for the caller's transaction.
 */
export async function shareLockLiveNamespace(q: Queryable, id: NamespaceId): Promise<void> {
  await q.query("SELECT 1 FROM namespaces WHERE id = $1 AND deleted_at IS NULL FOR SHARE", [id]);
}
