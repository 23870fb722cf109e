/**
 * Server-side sessions (issue 42). A session is a random token held by the client; only the
 * token's SHA-256 is stored. Expiry (idle and absolute) and revocation are decided by the
 * database clock on every read. Every write that ends sessions announces a policy change, so
 * every API process's policy cache drops what it holds at once (iam/policy-cache.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import {
  branded,
  defineRow,
  defineTable,
  integer,
  nullable,
  oneOf,
  text,
  timestamp,
  type RowOf,
} from "../store/columns.js";
import type { Queryable } from "../store/db.js";
import { rowById } from "../store/lookup.js";
import { listPage, type Page, type PageOptions } from "../store/paging.js";
import { announcePolicyChange } from "../store/policy-changes.js";
import {
  isPrincipalId,
  isSessionId,
  newIamId,
  type PrincipalId,
  type SessionId,
} from "../domain/iam/ids.js";
import {
  PRINCIPAL_KINDS,
  type PrincipalKind,
  SESSION_METHODS,
  type SessionMethod,
} from "../domain/iam/vocabulary.js";

/** The `sessions` table without the token hash: the shape every read returns. */
export const sessionsTable = defineTable("sessions", {
  id: branded(isSessionId, "a session ID"),
  principalId: branded(isPrincipalId, "a principal ID"),
  method: oneOf(SESSION_METHODS),
  clientAddress: nullable(text),
  userAgent: nullable(text),
  createdAt: timestamp,
  lastSeenAt: timestamp,
  idleSeconds: integer,
  expiresAt: timestamp,
  revokedAt: nullable(timestamp),
});
export type SessionRecord = RowOf<typeof sessionsTable.columns>;
const COLUMNS = sessionsTable.select();

const TOKEN_PATTERN = /^occs_[A-Za-z0-9_-]{43}$/;

/** True when `value` has the session token format (`occs_` + 32 random bytes, base64url). */
export function isSessionToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/** Lowercase hex SHA-256 of a session token. */
export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface NewSession {
  readonly principalId: PrincipalId;
  readonly method: SessionMethod;
  readonly clientAddress: string | null;
  readonly userAgent: string | null;
  readonly idleSeconds: number;
  readonly absoluteSeconds: number;
}

/** Starts a session; the token is returned here only. */
export async function createSession(
  q: Queryable,
  input: NewSession,
): Promise<{ readonly record: SessionRecord; readonly token: string }> {
  const token = `occs_${randomBytes(32).toString("base64url")}`;
  const res = await q.query(
    `INSERT INTO sessions (id, token_sha256, principal_id, method, client_address, user_agent,
                           idle_seconds, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))
     RETURNING ${COLUMNS}`,
    [
      newIamId("session"),
      hashSessionToken(token),
      input.principalId,
      input.method,
      input.clientAddress?.slice(0, 100) ?? null,
      input.userAgent?.slice(0, 300) ?? null,
      input.idleSeconds,
      input.absoluteSeconds,
    ],
  );
  return { record: sessionsTable.decode(res.rows[0]), token };
}

/** A live session and its principal, as authentication resolves it. */
export interface AuthenticatedSession {
  readonly sessionId: SessionId;
  readonly principal: {
    readonly id: PrincipalId;
    readonly kind: PrincipalKind;
    readonly name: string;
  };
  readonly method: SessionMethod;
  /** When it ends on its own: the earlier of its idle and absolute expiry. */
  readonly until: Date;
  readonly expiresAt: Date;
}

/** The row {@link authenticateSession} reads: the session and its principal. */
const authenticatedRow = defineRow("sessions (authenticated)", {
  id: sessionsTable.columns.id,
  principalId: sessionsTable.columns.principalId,
  method: sessionsTable.columns.method,
  expiresAt: timestamp,
  idleUntil: timestamp,
  kind: oneOf(PRINCIPAL_KINDS),
  name: text,
});

/**
 * The live session `token` names, or `undefined` (unknown, revoked, idle too long, expired, or
 * its principal deleted). Refreshes `last_seen_at` when it is older than a quarter of the idle
 * timeout (at most once a minute), in the same statement.
 */
export async function authenticateSession(
  q: Queryable,
  token: string,
): Promise<AuthenticatedSession | undefined> {
  if (!isSessionToken(token)) return undefined;
  const res = await q.query(
    `WITH live AS (
       SELECT s.id, s.principal_id, s.method, s.expires_at, s.last_seen_at, s.idle_seconds,
              p.kind, p.name,
              s.last_seen_at < now() - make_interval(secs => least(60, s.idle_seconds / 4.0)) AS stale
       FROM sessions s JOIN principals p ON p.id = s.principal_id
       WHERE s.token_sha256 = $1 AND s.revoked_at IS NULL AND p.deleted_at IS NULL
         AND s.expires_at > now()
         AND s.last_seen_at + make_interval(secs => s.idle_seconds) > now()),
     touched AS (
       UPDATE sessions SET last_seen_at = now()
       WHERE id = (SELECT id FROM live WHERE stale) RETURNING id)
     SELECT id, principal_id, method, expires_at, kind, name,
            CASE WHEN stale THEN now() ELSE last_seen_at END
              + make_interval(secs => idle_seconds) AS idle_until
     FROM live`,
    [hashSessionToken(token)],
  );
  const row = authenticatedRow.decodeFirst(res.rows);
  if (row === undefined) return undefined;
  const { expiresAt, idleUntil } = row;
  return {
    sessionId: row.id,
    principal: { id: row.principalId, kind: row.kind, name: row.name },
    method: row.method,
    until: idleUntil < expiresAt ? idleUntil : expiresAt,
    expiresAt,
  };
}

/** A session's record, ended or not. */
export function getSession(q: Queryable, id: SessionId): Promise<SessionRecord | undefined> {
  return rowById(q, sessionsTable, id);
}

/** A principal's sessions that have not been revoked and have not expired, oldest first. */
export function listLiveSessions(
  q: Queryable,
  principalId: PrincipalId,
  opts: PageOptions,
): Promise<Page<SessionRecord>> {
  return listPage(
    q,
    sessionsTable,
    {
      where: `principal_id = $1 AND revoked_at IS NULL AND expires_at > now()
              AND last_seen_at + make_interval(secs => idle_seconds) > now()`,
      params: [principalId],
    },
    opts,
  );
}

/**
 * Revokes the session `id` (a no-op when already revoked), announcing the change. `undefined`
 * when there is no such session.
 */
export async function revokeSession(
  q: Queryable,
  id: SessionId,
): Promise<SessionRecord | undefined> {
  await q.query("UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", [
    id,
  ]);
  await announcePolicyChange(q);
  return getSession(q, id);
}

/** Revokes every unrevoked session of `principalId` (deletion, password reset); how many. */
export async function revokePrincipalSessions(
  q: Queryable,
  principalId: PrincipalId,
): Promise<number> {
  const res = await q.query(
    "UPDATE sessions SET revoked_at = now() WHERE principal_id = $1 AND revoked_at IS NULL RETURNING id",
    [principalId],
  );
  await announcePolicyChange(q);
  return res.rowCount;
}
