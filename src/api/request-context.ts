/**
 * Per-request context: the request ID every response carries (`x-request-id`, and
 * `meta.requestId` in every body), and the authenticated caller. The ID is always generated
 * here — a client-supplied one is ignored, so logs and audit events cannot be polluted or
 * correlated by a caller's choice.
 *
 * Authentication (control-plane.md §3) is a bearer API key or a session on every route not
 * marked public. A missing, malformed, unknown, wrong, revoked or expired key or session, or
 * one whose principal was deleted, is answered with 401 — the reason is logged (never the key), not returned.
 * Unauthenticated requests are not audited. A database failure while checking the key is
 * 503: the caller may well be legitimate.
 */
import { randomUUID } from "node:crypto";
import {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import type { Db, PolicyCache } from "../services/handles.js";
import type { Caller } from "../services/authorization.js";
import type { AuthSettings } from "../services/signin/runtime.js";
import {
  authenticateKey,
  authenticateSessionToken,
  bearerToken,
} from "../services/signin/authenticate.js";
import { checkOrigin, presentedSession, type PresentedSession } from "./auth/session-auth.js";
import { ServiceError } from "../services/errors.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by authentication; `null` on public routes and before authentication. */
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** Served without authentication (health, metrics, the OpenAPI document). */
    public?: boolean;
  }
}

export const REQUEST_ID_HEADER = "x-request-id";

/** A new request ID: `req_` + a UUIDv4. */
export function newRequestId(): string {
  return `req_${randomUUID()}`;
}

/** Decorates requests with `caller` and stamps `x-request-id` on every response. */
export function registerRequestContext(app: FastifyInstance): void {
  app.decorateRequest("caller", null);
  app.addHook("onSend", async (request, reply, payload) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    return payload;
  });
}

/** The authenticated caller; only absent on a route that is wrongly marked public. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw new ServiceError("UNAUTHENTICATED");
  return request.caller;
}

/** `{ data, meta }` for `request`. */
export function envelope<T>(
  request: FastifyRequest,
  data: T,
): { data: T; meta: { requestId: string } } {
  return { data, meta: { requestId: request.id } };
}

/** `{ data: [...], meta: { requestId, nextCursor } }` for `request`. */
export function pageEnvelope<T>(
  request: FastifyRequest,
  data: T[],
  nextCursor: string | null,
): { data: T[]; meta: { requestId: string; nextCursor: string | null } } {
  return { data, meta: { requestId: request.id, nextCursor } };
}

/**
 * Adds the authentication hook to `app` (and every route registered in it): a bearer API key,
 * or a session (the `occ_session` cookie, or the CLI's session as a bearer credential; see
 * auth/session-auth.ts, with its CSRF rule). With `policy`, keys, sessions and grants are
 * served from the process's policy cache (iam/policy-cache.ts).
 */
export function registerAuthentication(
  app: FastifyInstance,
  db: Db,
  policy: PolicyCache | undefined,
  settings: AuthSettings,
): void {
  app.addHook("onRequest", async (request) => {
    if (request.is404 || request.routeOptions.config.public === true) return;
    const bearer = bearerToken(request.headers.authorization);
    const session = presentedSession(request, bearer);
    if (session !== undefined) {
      request.caller = await sessionCaller(request, db, policy, settings, session);
      return;
    }
    if (bearer === undefined) throw new ServiceError("UNAUTHENTICATED");
    const result = await authenticateKey(db, policy, bearer, request.id);
    if (result.outcome === "rejected") {
      request.log.info({ reason: result.reason }, "api key rejected");
      throw new ServiceError("UNAUTHENTICATED");
    }
    request.caller = result.caller;
  });
}

async function sessionCaller(
  request: FastifyRequest,
  db: Db,
  policy: PolicyCache | undefined,
  settings: AuthSettings,
  session: PresentedSession | null,
): Promise<Caller> {
  if (session === null) {
    request.log.info({ reason: "bad_signature" }, "session rejected");
    throw new ServiceError("UNAUTHENTICATED", "The session is not valid; sign in again.");
  }
  if (session.via === "cookie") checkOrigin(request, settings, false);
  const caller = await authenticateSessionToken(db, policy, session.token, request.id);
  if (caller === undefined) {
    request.log.info({ reason: "ended_or_unknown" }, "session rejected");
    throw new ServiceError("UNAUTHENTICATED", "The session has ended; sign in again.");
  }
  return caller;
}

/**
 * How a request appears in the log: method and path only. The query string is dropped — it
 * is where a misconfigured client puts an API key (`?api_key=…`) — and headers and bodies
 * are never logged.
 */
export function requestLogView(request: Pick<FastifyRequest, "method" | "url">): {
  method: string;
  url: string;
} {
  const url = typeof request.url === "string" ? request.url : "";
  const query = url.indexOf("?");
  return { method: request.method, url: query < 0 ? url : `${url.slice(0, query)}?…` };
}

/**
 * One log line per request, written when it completes (method, path as {@link requestLogView}
 * shows it, status, time), instead of Fastify's two ("incoming request" as well): the log is
 * the largest per-request cost after the response itself (issue 20, P5).
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest(): void {
    // Logged once, on completion.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error !== null && error !== undefined) {
      reply.log.error({ ...line, err: error }, "request errored");
    } else {
      reply.log.info(line, "request completed");
    }
  }
}
