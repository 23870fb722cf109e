/**
 * External identities (issue 42): a user principal reached through an identity of an external
 * OpenID Provider, named by (issuer, subject), unique. A sign-in finds its principal by that
 * pair only; the e-mail is recorded for people to read, never used to match.
 */
import {
  branded,
  defineRow,
  defineTable,
  nullable,
  text,
  timestamp,
  type RowOf,
} from "../store/columns.js";
import type { Queryable } from "../store/db.js";
import { isPrincipalId, type PrincipalId } from "../domain/iam/ids.js";
import { principalsTable } from "./principals.js";

export const externalIdentitiesTable = defineTable("external_identities", {
  issuer: text,
  subject: text,
  principalId: branded(isPrincipalId, "a principal ID"),
  email: nullable(text),
  createdAt: timestamp,
  lastSignInAt: nullable(timestamp),
});

export type ExternalIdentityRecord = RowOf<typeof externalIdentitiesTable.columns>;

const COLUMNS = externalIdentitiesTable.select();

/** The pair that names an identity. */
export interface IdentityKey {
  readonly issuer: string;
  readonly subject: string;
}

export interface NewExternalIdentity extends IdentityKey {
  readonly principalId: PrincipalId;
  readonly email: string | null;
}

export type LinkIdentityResult =
  | { readonly outcome: "linked"; readonly identity: ExternalIdentityRecord }
  | { readonly outcome: "identity_in_use" }
  | { readonly outcome: "principal_missing" }
  | { readonly outcome: "not_a_user" };

const principalKindRow = defineRow("principals (kind)", { kind: principalsTable.columns.kind });

/**
 * Links an identity to a live user principal, in the caller's transaction. An identity already
 * linked (to this or another principal) is a result, not an error: `ON CONFLICT DO NOTHING`
 * keeps the transaction usable and the primary key decides simultaneous requests. The
 * principal row is share-locked, so it cannot be deleted between the check and the insert.
 */
export async function linkIdentity(
  q: Queryable,
  input: NewExternalIdentity,
): Promise<LinkIdentityResult> {
  const found = await q.query(
    "SELECT kind FROM principals WHERE id = $1 AND deleted_at IS NULL FOR SHARE",
    [input.principalId],
  );
  const kind = principalKindRow.decodeFirst(found.rows)?.kind;
  if (kind === undefined) return { outcome: "principal_missing" };
  if (kind !== "user") return { outcome: "not_a_user" };
  const res = await q.query(
    `INSERT INTO external_identities (issuer, subject, principal_id, email)
     VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [input.issuer, input.subject, input.principalId, input.email],
  );
  const identity = externalIdentitiesTable.decodeFirst(res.rows);
  return identity === undefined ? { outcome: "identity_in_use" } : { outcome: "linked", identity };
}

/** Removes the identity `key` of `principalId`; `undefined` when that principal has no such identity. */
export async function unlinkIdentity(
  q: Queryable,
  principalId: PrincipalId,
  key: IdentityKey,
): Promise<ExternalIdentityRecord | undefined> {
  const res = await q.query(
    `DELETE FROM external_identities WHERE issuer = $1 AND subject = $2 AND principal_id = $3
     RETURNING ${COLUMNS}`,
    [key.issuer, key.subject, principalId],
  );
  return externalIdentitiesTable.decodeFirst(res.rows);
}

/**
 * Serialises the admission of one identity until the caller's transaction ends: two first
 * sign-ins of it at once, the second waits and then finds the first's principal.
 */
export async function lockIdentityAdmission(q: Queryable, key: IdentityKey): Promise<void> {
  await q.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`${key.issuer} ${key.subject}`]);
}

/** The identity `key` (whoever it is linked to, live or deleted), or `undefined`. */
export async function findIdentity(
  q: Queryable,
  key: IdentityKey,
  opts: { readonly forUpdate?: boolean } = {},
): Promise<ExternalIdentityRecord | undefined> {
  const lock = opts.forUpdate === true ? " FOR UPDATE" : "";
  const res = await q.query(
    `SELECT ${COLUMNS} FROM external_identities WHERE issuer = $1 AND subject = $2${lock}`,
    [key.issuer, key.subject],
  );
  return externalIdentitiesTable.decodeFirst(res.rows);
}

/** The identities of one principal, oldest first (a principal has a handful at most). */
export async function listIdentities(
  q: Queryable,
  principalId: PrincipalId,
): Promise<readonly ExternalIdentityRecord[]> {
  const res = await q.query(
    `SELECT ${COLUMNS} FROM external_identities WHERE principal_id = $1
     ORDER BY created_at, issuer, subject LIMIT 100`,
    [principalId],
  );
  return res.rows.map((row) => externalIdentitiesTable.decode(row));
}

/** Records a sign-in through the identity: its time and the e-mail the provider gave now. */
export async function touchIdentity(
  q: Queryable,
  key: IdentityKey,
  email: string | null,
): Promise<void> {
  await q.query(
    `UPDATE external_identities SET last_sign_in_at = now(), email = $3
     WHERE issuer = $1 AND subject = $2`,
    [key.issuer, key.subject, email],
  );
}
