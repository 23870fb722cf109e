/**
 * Principals: users and service principals (control-plane.md §3). Deleting one is a soft
 * delete that also revokes its API keys and ends its sessions, so the frozen actor of queued work and of audit
 * events still names a row, while the principal can no longer authenticate or be authorized.
 */
import { branded, defineTable, nullable, oneOf, text, timestamp } from "../store/columns.js";
import type { RowOf } from "../store/columns.js";
import type { Queryable } from "../store/db.js";
import { listPage, type Page, type PageOptions } from "../store/paging.js";
import { isPrincipalId, newIamId, type PrincipalId } from "../domain/iam/ids.js";
import { announcePolicyChange } from "../store/policy-changes.js";
import { PRINCIPAL_KINDS, type PrincipalKind } from "../domain/iam/vocabulary.js";

/** The `principals` table; {@link PrincipalRecord} is derived from it. */
export const principalsTable = defineTable("principals", {
  id: branded(isPrincipalId, "a principal ID"),
  kind: oneOf(PRINCIPAL_KINDS),
  name: text,
  createdAt: timestamp,
  deletedAt: nullable(timestamp),
});

export type PrincipalRecord = RowOf<typeof principalsTable.columns>;

const COLUMNS = principalsTable.select();

export interface NewPrincipal {
  readonly kind: PrincipalKind;
  /** 1–200 printable characters, unique among live principals. */
  readonly name: string;
}

export type CreatePrincipalResult =
  | { readonly outcome: "created"; readonly principal: PrincipalRecord }
  | { readonly outcome: "name_in_use" };

/**
 * Inserts a principal. A live principal with the same name is a result, not an error: the
 * insert uses `ON CONFLICT DO NOTHING`, so the caller's transaction stays usable and the
 * partial unique index decides simultaneous requests.
 */
export async function createPrincipal(
  q: Queryable,
  input: NewPrincipal,
): Promise<CreatePrincipalResult> {
  const res = await q.query(
    `INSERT INTO principals (id, kind, name) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [newIamId("principal"), input.kind, input.name],
  );
  const principal = principalsTable.decodeFirst(res.rows);
  return principal === undefined ? { outcome: "name_in_use" } : { outcome: "created", principal };
}

/** The live principal with `id`, or `undefined` (also when deleted). */
export async function getPrincipal(
  q: Queryable,
  id: PrincipalId,
  opts: { readonly forUpdate?: boolean } = {},
): Promise<PrincipalRecord | undefined> {
  const lock = opts.forUpdate === true ? " FOR UPDATE" : "";
  const res = await q.query(
    `SELECT ${COLUMNS} FROM principals WHERE id = $1 AND deleted_at IS NULL${lock}`,
    [id],
  );
  return principalsTable.decodeFirst(res.rows);
}

/** The live principal named `name`, or `undefined`. */
export async function findPrincipalByName(
  q: Queryable,
  name: string,
): Promise<PrincipalRecord | undefined> {
  const res = await q.query(
    `SELECT ${COLUMNS} FROM principals WHERE name = $1 AND deleted_at IS NULL`,
    [name],
  );
  return principalsTable.decodeFirst(res.rows);
}

/** Live principals, oldest first. */
export function listPrincipals(q: Queryable, opts: PageOptions): Promise<Page<PrincipalRecord>> {
  return listPage(q, principalsTable, { where: "deleted_at IS NULL", params: [] }, opts);
}

/**
 * Soft-deletes a live principal, revokes its unrevoked API keys, ends its sessions and drops its
 * password, in the caller's
 * transaction, announcing the change to the policy caches. `undefined` when there was no live
 * principal with `id`.
 */
export async function deletePrincipal(
  q: Queryable,
  id: PrincipalId,
): Promise<PrincipalRecord | undefined> {
  const res = await q.query(
    `UPDATE principals SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL
     RETURNING ${COLUMNS}`,
    [id],
  );
  const row = res.rows[0];
  if (row === undefined) return undefined;
  await q.query(
    "UPDATE api_keys SET revoked_at = now() WHERE principal_id = $1 AND revoked_at IS NULL",
    [id],
  );
  await q.query(
    "UPDATE sessions SET revoked_at = now() WHERE principal_id = $1 AND revoked_at IS NULL",
    [id],
  );
  await q.query("DELETE FROM password_credentials WHERE principal_id = $1", [id]);
  await announcePolicyChange(q);
  return principalsTable.decode(row);
}
