/**
 * Session use cases (issue 42): start one for a principal that has proven who it is (password
 * here; OIDC and Google call {@link startSession} too), sign out, and the administrator's list
 * and revoke. Sign-in, sign-out and revoke are audit events; no token ever is.
 */
import { appendAuditEvent } from "../../store/audit-events.js";
import type { Db, Queryable } from "../../store/db.js";
import type { PrincipalId, SessionId } from "../../domain/iam/ids.js";
import { getPrincipal } from "../../iam/principals.js";
import { createSession, revokeSession, type SessionRecord } from "../../iam/sessions.js";
import type { SessionMethod } from "../../domain/iam/vocabulary.js";
import type { Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";
import { removedOr404, type Mutation } from "../iam/administer.js";

/** How long sessions last (`OCC_SESSION_IDLE_SECONDS`, `OCC_SESSION_ABSOLUTE_SECONDS`). */
export interface SessionLifetimes {
  /** A session unused this long ends. Default 8 hours. */
  readonly idleSeconds: number;
  /** A session ends this long after sign-in, used or not. Default 24 hours. */
  readonly absoluteSeconds: number;
}

export const DEFAULT_SESSION_LIFETIMES: SessionLifetimes = {
  idleSeconds: 8 * 3600,
  absoluteSeconds: 24 * 3600,
};

export interface StartSessionInput {
  readonly principalId: PrincipalId;
  readonly method: SessionMethod;
  readonly clientAddress: string | null;
  readonly userAgent: string | null;
  readonly requestId?: string | undefined;
}

export interface StartedSession {
  readonly sessionId: SessionId;
  /** The token for the cookie: returned here only, never stored or logged. */
  readonly token: string;
  readonly expiresAt: Date;
}

/**
 * Starts a session for a live principal and records the sign-in (`auth.sign_in`) in the same
 * transaction. The caller has verified the principal's credential.
 */
export function startSession(
  deps: { readonly db: Db; readonly lifetimes: SessionLifetimes },
  input: StartSessionInput,
): Promise<StartedSession> {
  return deps.db.transaction(async (tx) => {
    if ((await getPrincipal(tx, input.principalId, { forUpdate: true })) === undefined) {
      throw new ServiceError("UNAUTHENTICATED", "The principal no longer exists.");
    }
    const { record, token } = await createSession(tx, {
      principalId: input.principalId,
      method: input.method,
      clientAddress: input.clientAddress,
      userAgent: input.userAgent,
      ...deps.lifetimes,
    });
    await appendAuditEvent(tx, {
      kind: "mutation",
      outcome: "success",
      actor: input.principalId,
      action: "auth.sign_in",
      resourceKind: "session",
      resourceId: record.id,
      ...(input.requestId === undefined ? {} : { requestId: input.requestId }),
      details: {
        method: input.method,
        ...(input.clientAddress === null ? {} : { clientAddress: input.clientAddress }),
      },
    });
    return { sessionId: record.id, token, expiresAt: record.expiresAt };
  });
}

/** Records a refused sign-in (`auth.sign_in`, outcome `failure`); never the name or password. */
export async function recordSignInFailure(
  q: Queryable,
  input: {
    readonly method: SessionMethod;
    readonly principalId: PrincipalId | null;
    readonly reason: string;
    readonly clientAddress: string | null;
    readonly requestId?: string | undefined;
  },
): Promise<void> {
  await appendAuditEvent(q, {
    kind: "mutation",
    outcome: "failure",
    actor: input.principalId ?? "anonymous",
    action: "auth.sign_in",
    resourceKind: "session",
    ...(input.requestId === undefined ? {} : { requestId: input.requestId }),
    details: {
      method: input.method,
      reason: input.reason,
      ...(input.clientAddress === null ? {} : { clientAddress: input.clientAddress }),
    },
  });
}

/** Ends the caller's own session (`auth.sign_out`); with an API key there is none to end. */
export async function signOut(db: Db, caller: Caller): Promise<void> {
  const credential = caller.credential;
  if (credential?.kind !== "session") {
    throw new ServiceError(
      "INVALID_REQUEST",
      "Only a session can sign out; an API key is revoked with DELETE /api-keys/{id}.",
    );
  }
  await db.transaction(async (tx) => {
    await revokeSession(tx, credential.sessionId);
    await appendAuditEvent(tx, {
      kind: "mutation",
      outcome: "success",
      actor: caller.principalId,
      action: "auth.sign_out",
      resourceKind: "session",
      resourceId: credential.sessionId,
      ...(caller.requestId === undefined ? {} : { requestId: caller.requestId }),
      details: { method: credential.method },
    });
  });
}

/**
 * The revoke step of `DELETE /sessions/:id` (`sessions.revoke`, run by the administered
 * delete): revoking twice is a no-op; 404 when there is no such session.
 */
export async function revokeSessionStep(
  tx: Queryable,
  id: SessionId,
): Promise<Mutation<SessionRecord>> {
  const revoked = removedOr404(await revokeSession(tx, id), id, "session");
  return { ...revoked, details: { principalId: revoked.result.principalId } };
}

/** The read use case of a principal's live sessions (never their tokens). */
export { listLiveSessions } from "../../iam/sessions.js";
