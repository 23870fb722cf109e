/**
 * The session side of authentication (issue 42): the signed `occ_session` cookie, the session
 * presented as a bearer credential by the CLI, and the CSRF rule for the cookie.
 *
 * The cookie holds `<token>.<HMAC-SHA256 signature>` under the session key
 * (`auth.sessionKeyFile`); the server stores only the token's SHA-256. It is `HttpOnly`,
 * `SameSite=Lax` (so the redirect back from an identity provider carries it), `Path=/`, and
 * `Secure` unless the console is served over plain http on a loopback address (development).
 *
 * CSRF: a state-changing request (anything but GET, HEAD, OPTIONS) authenticated by the cookie
 * must carry an `Origin` header equal to the console's origin (`auth.baseUrl`, or without one
 * the origin the request was addressed to), and no `Sec-Fetch-Site` other than `same-origin`.
 * An Origin check needs no token round trip and every browser sends `Origin` on such requests;
 * a request without one is refused. Bearer credentials (API keys, the CLI's session) are not
 * sent by browsers on their own, so they need no check.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fastifyCookie from "@fastify/cookie";
import { SESSION_COOKIE } from "../../contract/auth.js";
import { isSessionToken } from "../../services/signin/authenticate.js";
import {
  isLoopbackHost,
  type AuthRuntime,
  type AuthSettings,
} from "../../services/signin/runtime.js";
import { ServiceError } from "../../services/errors.js";

/** Registers cookie parsing and signing with the session key. */
export async function registerSessionCookies(
  app: FastifyInstance,
  runtime: AuthRuntime,
): Promise<void> {
  await app.register(fastifyCookie, { secret: runtime.sessionKey, hook: "onRequest" });
}

/** A session credential on a request, and how it came. */
export interface PresentedSession {
  readonly token: string;
  readonly via: "cookie" | "bearer";
}

/**
 * The session a request presents: a bearer credential that is a signed session value (the
 * CLI), else the cookie. `undefined` when there is none; `null` when one is present but its
 * signature or format is wrong (refused like an unknown session).
 */
export function presentedSession(
  request: FastifyRequest,
  bearer: string | undefined,
): PresentedSession | null | undefined {
  const raw = bearer ?? request.cookies[SESSION_COOKIE];
  if (raw === undefined || (bearer !== undefined && !bearer.startsWith("occs_"))) return undefined;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || !isSessionToken(unsigned.value)) return null;
  return { token: unsigned.value, via: bearer === undefined ? "cookie" : "bearer" };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The origin cookie-authenticated writes must come from. */
export function consoleOrigin(request: FastifyRequest, settings: AuthSettings): string {
  return settings.baseUrl?.origin ?? `${request.protocol}://${request.host}`;
}

/**
 * Refuses (403) a request from a foreign page: for a state-changing request authenticated by the
 * cookie (`always` false), or for any request that states a foreign origin (`always` true:
 * the sign-in form, against login CSRF).
 */
export function checkOrigin(
  request: FastifyRequest,
  settings: AuthSettings,
  always: boolean,
): void {
  if (!always && SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.origin;
  const site = request.headers["sec-fetch-site"];
  const expected = consoleOrigin(request, settings);
  const foreignSite = site !== undefined && site !== "same-origin" && site !== "none";
  if (always ? origin !== undefined && origin !== expected : origin !== expected) {
    throw new ServiceError(
      "FORBIDDEN",
      `A request with the session cookie must come from ${expected} (its Origin header); other clients use an API key.`,
    );
  }
  if (foreignSite) {
    throw new ServiceError("FORBIDDEN", `Cross-site requests are refused; open ${expected}.`);
  }
}

/** Whether the cookie gets `Secure`: always, except plain http on a loopback address. */
function secureCookie(request: FastifyRequest, settings: AuthSettings): boolean {
  if (settings.baseUrl !== null) return settings.baseUrl.protocol === "https:";
  return request.protocol === "https" || !isLoopbackHost(request.hostname);
}

/** Sets the signed session cookie; returns the signed value (what the CLI stores). */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  settings: AuthSettings,
  token: string,
  expiresAt: Date,
): string {
  const signed = reply.signCookie(token);
  void reply.setCookie(SESSION_COOKIE, signed, {
    httpOnly: true,
    secure: secureCookie(request, settings),
    sameSite: "lax",
    path: "/",
    expires: expiresAt,
  });
  return signed;
}

/** Clears the session cookie. */
export function clearSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  settings: AuthSettings,
): void {
  void reply.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    secure: secureCookie(request, settings),
    sameSite: "lax",
    path: "/",
  });
}
