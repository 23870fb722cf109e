/**
 * Enforcing authorization in services (control-plane.md §2, §3, §6).
 *
 * A service wraps its whole body in {@link recordingDenials} and calls
 * {@link requirePermission} wherever it needs a permission — before a transaction or inside
 * one (a re-authorization under a row lock). A denial aborts the body (rolling back any
 * transaction), and only then is the denial audited, on its own, outside the transaction it
 * aborted: denials are recorded even though nothing else is. If that write fails the answer
 * is 503, never 403, so no denial goes unrecorded. A failure to read policy denies too, as 503
 * (fail closed).
 */
import { appendAuditEvent, type NewAuditEvent } from "../store/audit-events.js";
import type { Db, Queryable } from "../store/db.js";
import type { JsonObject } from "../store/columns.js";
import { authorize, type AuthorizationRequest, type Decision } from "../iam/authorizer.js";
import type { PrincipalId, ApiKeyId, SessionId } from "../domain/iam/ids.js";
import { type SessionMethod, formatPermission } from "../domain/iam/vocabulary.js";
import type { PolicyCache } from "../iam/policy-cache.js";
import { ServiceError } from "./errors.js";

/** Who is asking: the authenticated principal, and the request (for audit correlation). */
export interface Caller {
  readonly principalId: PrincipalId;
  readonly requestId?: string | undefined;
  /** The API process's policy cache, when it has one (see iam/policy-cache.ts). */
  readonly policy?: PolicyCache | undefined;
  /** How the request authenticated: an API key or a session (absent: an internal caller). */
  readonly credential?: CallerCredential | undefined;
}

/** The credential a request authenticated with. */
export type CallerCredential =
  | { readonly kind: "api_key"; readonly keyId: ApiKeyId }
  | {
      readonly kind: "session";
      readonly sessionId: SessionId;
      readonly method: SessionMethod;
      readonly expiresAt: Date;
    };

/** What an audit event about the request names: `namespaces.create` on `namespace` ns_…. */
export interface AuditSubject {
  readonly action: string;
  readonly resourceKind: string;
  readonly resourceId?: string | undefined;
}

/** Thrown by {@link requirePermission} on a denial; turned into 403 by {@link recordingDenials}. */
export class AuthorizationDenied extends Error {
  override readonly name = "AuthorizationDenied";
  constructor(
    readonly request: AuthorizationRequest,
    readonly decision: Extract<Decision, { allowed: false }>,
    readonly subject: AuditSubject,
  ) {
    super(`denied ${formatPermission(request.permission)}: ${decision.reason}`);
  }
}

/** An allowed decision, as evidence for the success event's details. */
export type Grant = Extract<Decision, { allowed: true }>;

/**
 * Decides `request` for `caller` with `q` (the database, or a transaction holding a lock).
 * Returns the grant, or throws {@link AuthorizationDenied}, or — when policy cannot be read —
 * `DEPENDENCY_UNAVAILABLE`.
 */
export async function requirePermission(
  q: Queryable,
  caller: Caller,
  request: AuthorizationRequest,
  subject: AuditSubject,
): Promise<Grant> {
  let decision: Decision;
  try {
    decision =
      caller.policy === undefined
        ? await authorize(q, caller.principalId, request)
        : await caller.policy.authorize(q, caller.principalId, request);
  } catch (err) {
    throw new ServiceError(
      "DEPENDENCY_UNAVAILABLE",
      "Authorization policy could not be read; the request was denied. Retry later.",
      { cause: err },
    );
  }
  if (!decision.allowed) throw new AuthorizationDenied(request, decision, subject);
  return decision;
}

/** Audit details that show what was granted: the binding and role that allowed it. */
export function grantEvidence(grant: Grant): JsonObject {
  return { bindingId: grant.bindingId, roleId: grant.roleId, scope: grant.scope };
}

/**
 * Runs `body`; when it throws {@link AuthorizationDenied}, appends the denial event with `db`
 * and throws `FORBIDDEN` — or `DEPENDENCY_UNAVAILABLE` when the event could not be written.
 */
export async function recordingDenials<T>(
  db: Db,
  caller: Caller,
  body: () => Promise<T>,
): Promise<T> {
  try {
    return await body();
  } catch (err) {
    if (!(err instanceof AuthorizationDenied)) throw err;
    const details: Record<string, string> = {
      permission: formatPermission(err.request.permission),
      reason: err.decision.reason,
    };
    if (err.request.namespaceId !== undefined) details.namespaceId = err.request.namespaceId;
    if (err.decision.restrictionId !== undefined) {
      details.restrictionId = err.decision.restrictionId;
    }
    try {
      await appendAuditEvent(db, {
        kind: "authorization_denial",
        outcome: "denied",
        actor: caller.principalId,
        action: err.subject.action,
        resourceKind: err.subject.resourceKind,
        ...(err.subject.resourceId === undefined ? {} : { resourceId: err.subject.resourceId }),
        ...(caller.requestId === undefined ? {} : { requestId: caller.requestId }),
        details,
      });
    } catch (auditErr) {
      throw new ServiceError(
        "DEPENDENCY_UNAVAILABLE",
        "The request was denied, but the denial could not be recorded. Retry later.",
        { cause: auditErr },
      );
    }
    throw new ServiceError(
      "FORBIDDEN",
      `The caller lacks ${formatPermission(err.request.permission)} for this request.`,
      { cause: err },
    );
  }
}

/**
 * Appends the success event of a mutation (control-plane.md §6) with the mutation's own
 * transaction `tx`, so the change and its event commit together or not at all: the event of
 * `subject` by `caller`, with the grant that allowed it as evidence.
 */
export async function recordMutation(
  tx: Queryable,
  caller: Caller,
  subject: AuditSubject & { readonly resourceId: string },
  grant: Grant,
  details: JsonObject = {},
): Promise<void> {
  await appendAuditEvent(tx, mutationEvent(caller, subject, grant, details));
}

/** The success audit event of a mutation (what {@link recordMutation} appends). */
export function mutationEvent(
  caller: Caller,
  subject: AuditSubject & { readonly resourceId: string },
  grant: Grant,
  details: JsonObject = {},
): NewAuditEvent {
  return {
    kind: "mutation",
    outcome: "success",
    actor: caller.principalId,
    action: subject.action,
    resourceKind: subject.resourceKind,
    resourceId: subject.resourceId,
    ...(caller.requestId === undefined ? {} : { requestId: caller.requestId }),
    details: { ...grantEvidence(grant), ...details },
  };
}
