/**
 * Password credentials of users (issue 42): argon2id through `@node-rs/argon2`, the PHC string
 * (algorithm, parameters, salt, hash) stored per principal. A password is never stored, logged
 * or returned; verifying an unknown user hashes against a fixed dummy hash, so an unknown user
 * and a wrong password take the same time.
 */
import { hash, verify } from "@node-rs/argon2";
import type { Queryable } from "../store/db.js";
import type { PrincipalId } from "../domain/iam/ids.js";
import { defineRow, nullable, text } from "../store/columns.js";
import { principalsTable } from "./principals.js";

/** argon2id (algorithm 2) with OWASP's second recommended setting: 19 MiB, 2 passes, 1 lane. */
const ARGON2ID = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The argon2id PHC string of `password`. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2ID);
}

/**
 * The hash of a random, discarded password with the same parameters: verified when there is no
 * user (or no password) to verify against, so that path costs one argon2id verification too.
 */
const DUMMY_HASH =
  "$argon2id$v=19$m=19456,t=2,p=1$i+OGaAO1wdyAI2QpQb4Vvg$+cHyE1xFXF0RfTrdSTENSQjOyzp52id9o12jaZR96jQ";

/** Sets (or replaces) the password of `principalId`, in the caller's transaction. */
export async function setPassword(
  q: Queryable,
  principalId: PrincipalId,
  password: string,
): Promise<void> {
  const phc = await hashPassword(password);
  await q.query(
    `INSERT INTO password_credentials (principal_id, hash) VALUES ($1, $2)
     ON CONFLICT (principal_id) DO UPDATE SET hash = EXCLUDED.hash, updated_at = now()`,
    [principalId, phc],
  );
}

/** The user a presented name and password belong to, when they do. */
export type PasswordCheck =
  | { readonly outcome: "verified"; readonly principalId: PrincipalId; readonly name: string }
  | {
      readonly outcome: "rejected";
      readonly reason: "unknown_user" | "no_password" | "not_a_user" | "wrong_password";
      /** The principal the name names, when one does (for the audit event). */
      readonly principalId: PrincipalId | null;
    };

/** The row {@link checkPassword} reads: the principal and its password hash, if any. */
const credentialRow = defineRow("password_credentials (check)", {
  id: principalsTable.columns.id,
  kind: principalsTable.columns.kind,
  name: text,
  hash: nullable(text),
});

/**
 * Checks `password` for the live principal named `name`. Exactly one argon2 verification runs
 * whatever the outcome (against the dummy hash when there is nothing to verify against).
 */
export async function checkPassword(
  q: Queryable,
  name: string,
  password: string,
): Promise<PasswordCheck> {
  const res = await q.query(
    `SELECT p.id, p.kind, p.name, c.hash
     FROM principals p LEFT JOIN password_credentials c ON c.principal_id = p.id
     WHERE p.name = $1 AND p.deleted_at IS NULL`,
    [name],
  );
  const row = credentialRow.decodeFirst(res.rows);
  const stored = row?.kind === "user" ? row.hash : null;
  const matches = await verify(stored ?? DUMMY_HASH, password).catch(() => false);
  if (row === undefined) return { outcome: "rejected", reason: "unknown_user", principalId: null };
  if (row.kind !== "user")
    return { outcome: "rejected", reason: "not_a_user", principalId: row.id };
  if (stored === null) return { outcome: "rejected", reason: "no_password", principalId: row.id };
  if (!matches) return { outcome: "rejected", reason: "wrong_password", principalId: row.id };
  return { outcome: "verified", principalId: row.id, name: row.name };
}
