/**
 * API keys as stored (control-plane.md §3): issued with their secret shown once, stored as a
 * SHA-256 hash, found by their non-secret prefix, revocable, optionally expiring. Nothing in
 * this module returns, logs or stores the secret after {@link issueApiKey} hands it back.
 */
import {
  bool,
  branded,
  defineRow,
  defineTable,
  nullable,
  oneOf,
  text,
  timestamp,
  type RowOf,
} from "../store/columns.js";
import type { Queryable } from "../store/db.js";
import { rowById } from "../store/lookup.js";
import { pagesOf } from "../store/paging.js";
import { apiKeyMatches, apiKeyPrefix, generateApiKey, hashApiKey } from "./api-key-secret.js";
import {
  isApiKeyId,
  isPrincipalId,
  newIamId,
  type ApiKeyId,
  type PrincipalId,
} from "../domain/iam/ids.js";
import { announcePolicyChange } from "../store/policy-changes.js";
import { PRINCIPAL_KINDS, type PrincipalKind } from "../domain/iam/vocabulary.js";

/** The `api_keys` table without its hash column: the shape every read returns. */
export const apiKeysTable = defineTable("api_keys", {
  id: branded(isApiKeyId, "an API key ID"),
  principalId: branded(isPrincipalId, "a principal ID"),
  prefix: text,
  description: text,
  createdAt: timestamp,
  expiresAt: nullable(timestamp),
  revokedAt: nullable(timestamp),
  lastUsedAt: nullable(timestamp),
});

/** An API key's metadata. Holds neither the key nor its hash. */
export type ApiKeyRecord = RowOf<typeof apiKeysTable.columns>;

const COLUMNS = apiKeysTable.select();

export interface NewApiKey {
  readonly principalId: PrincipalId;
  readonly description?: string;
  /** Must lie in the future (the database refuses an expiry before creation). */
  readonly expiresAt?: Date | null;
}

/** A newly issued key: its metadata and the key itself, which is never available again. */
export interface IssuedApiKey {
  readonly record: ApiKeyRecord;
  readonly key: string;
}

/** Issues a key for a principal the caller has checked is live, in the caller's transaction. */
export async function issueApiKey(q: Queryable, input: NewApiKey): Promise<IssuedApiKey> {
  const generated = generateApiKey();
  const res = await q.query(
    `INSERT INTO api_keys (id, principal_id, prefix, secret_sha256, description, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [
      newIamId("apiKey"),
      input.principalId,
      generated.prefix,
      generated.sha256,
      input.description ?? "",
      input.expiresAt ?? null,
    ],
  );
  return { record: apiKeysTable.decode(res.rows[0]), key: generated.key };
}

/** Why a presented key was refused. Callers answer all of them alike (401). */
export const API_KEY_REJECTIONS = [
  "malformed",
  "unknown",
  "mismatch",
  "revoked",
  "expired",
  "principal_deleted",
] as const;
export type ApiKeyRejection = (typeof API_KEY_REJECTIONS)[number];

/** The principal a valid key authenticates. */
export interface AuthenticatedPrincipal {
  readonly id: PrincipalId;
  readonly kind: PrincipalKind;
  readonly name: string;
  readonly keyId: ApiKeyId;
}

export type AuthenticationResult =
  | {
      readonly outcome: "authenticated";
      readonly principal: AuthenticatedPrincipal;
      /** When the key stops working on its own (`null`: never), for a cache to honour. */
      readonly expiresAt: Date | null;
    }
  | { readonly outcome: "rejected"; readonly reason: ApiKeyRejection };

/** The row {@link authenticateApiKey} reads: the key, its state and its principal. */
const keyLookupRow = defineRow("api_keys (lookup)", {
  id: apiKeysTable.columns.id,
  principalId: apiKeysTable.columns.principalId,
  secretSha256: text,
  revoked: bool,
  expired: bool,
  expiresAt: nullable(timestamp),
  principalKind: oneOf(PRINCIPAL_KINDS),
  principalName: text,
  principalDeleted: bool,
});

const foundRow = defineRow("api_keys (exists)", { found: bool });

/** Compared against when the prefix is unknown, so both paths hash and compare once. */
const DECOY_SHA256 = hashApiKey("occ_0000000000000000_decoy");

/**
 * Authenticates a presented key: one read by prefix, a constant-time hash comparison, then
 * revocation, expiry (by the database clock) and the principal's deletion. Database errors
 * propagate; the caller answers them 503, never 401. On success `last_used_at` is refreshed at
 * most once a minute, best effort.
 */
export async function authenticateApiKey(
  q: Queryable,
  presented: string,
): Promise<AuthenticationResult> {
  const prefix = apiKeyPrefix(presented);
  if (prefix === undefined) return { outcome: "rejected", reason: "malformed" };
  const res = await q.query(
    `SELECT k.id, k.principal_id, k.secret_sha256,
            k.revoked_at IS NOT NULL AS revoked,
            (k.expires_at IS NOT NULL AND k.expires_at <= now()) AS expired, k.expires_at,
            p.kind AS principal_kind, p.name AS principal_name,
            p.deleted_at IS NOT NULL AS principal_deleted
     FROM api_keys k JOIN principals p ON p.id = k.principal_id
     WHERE k.prefix = $1`,
    [prefix],
  );
  const row = keyLookupRow.decodeFirst(res.rows);
  const matches = apiKeyMatches(presented, row?.secretSha256 ?? DECOY_SHA256);
  if (row === undefined) return { outcome: "rejected", reason: "unknown" };
  if (!matches) return { outcome: "rejected", reason: "mismatch" };
  if (row.revoked) return { outcome: "rejected", reason: "revoked" };
  if (row.expired) return { outcome: "rejected", reason: "expired" };
  if (row.principalDeleted) return { outcome: "rejected", reason: "principal_deleted" };
  await q
    .query(
      `UPDATE api_keys SET last_used_at = now()
       WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [row.id],
    )
    .catch(() => undefined);
  return {
    outcome: "authenticated",
    principal: {
      id: row.principalId,
      kind: row.principalKind,
      name: row.principalName,
      keyId: row.id,
    },
    expiresAt: row.expiresAt,
  };
}

/** A key's metadata, revoked or not. */
export function getApiKey(q: Queryable, id: ApiKeyId): Promise<ApiKeyRecord | undefined> {
  return rowById(q, apiKeysTable, id);
}

/** A principal's keys (revoked ones included, so an administrator sees the history). */
export const listApiKeys = pagesOf<PrincipalId, typeof apiKeysTable.columns>(
  apiKeysTable,
  "principal_id",
);

export type RevokeApiKeyResult =
  | { readonly outcome: "revoked"; readonly key: ApiKeyRecord }
  | { readonly outcome: "already_revoked"; readonly key: ApiKeyRecord }
  | { readonly outcome: "not_found" };

/**
 * Revokes a key; revoking twice changes nothing the second time. The change is announced to
 * every API process's policy cache.
 */
export async function revokeApiKey(q: Queryable, id: ApiKeyId): Promise<RevokeApiKeyResult> {
  const res = await q.query(
    `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL
     RETURNING ${COLUMNS}`,
    [id],
  );
  await announcePolicyChange(q);
  const row = res.rows[0];
  if (row !== undefined) return { outcome: "revoked", key: apiKeysTable.decode(row) };
  const current = await getApiKey(q, id);
  return current === undefined
    ? { outcome: "not_found" }
    : { outcome: "already_revoked", key: current };
}

/** True when the principal has ever been issued a key (bootstrap issues one only once). */
export async function hasAnyApiKey(q: Queryable, principalId: PrincipalId): Promise<boolean> {
  const res = await q.query(
    "SELECT EXISTS (SELECT 1 FROM api_keys WHERE principal_id = $1) AS found",
    [principalId],
  );
  return foundRow.decodeFirst(res.rows)?.found === true;
}
