/**
 * OIDC and Google sign-in routes (issue 42), public (no API key): `GET /auth/oidc/start`
 * redirects to the provider, `GET /auth/oidc/callback` receives the person back, and
 * `POST /auth/oidc/cli-token` hands `occ login` its session. Query strings (state, code) are
 * never logged (`requestLogView`).
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { SIGN_IN_PROVIDERS } from "../../domain/signin/allow-list.js";
import type { FastifyRequest } from "fastify";
import {
  CALLBACK_PATH,
  SignInRefused,
  beginSignIn,
  completeSignIn,
  exchangeCliHandoff,
  type OidcDeps,
} from "../../services/signin/oidc-flow.js";
import type { ExternalProviders } from "../../services/signin/external-providers.js";
import type { AuthRuntime } from "../../services/signin/runtime.js";
import { startSession } from "../../services/signin/sessions.js";
import type { Db } from "../../services/handles.js";
import { ServiceError } from "../../services/errors.js";
import { Closed, DataEnvelope, DateTime, literalUnion } from "../../contract/envelopes.js";
import { errorResponses, noSecurity, op } from "../schemas.js";
import { envelope } from "../request-context.js";
import { setSessionCookie } from "./session-auth.js";

/** The browser binding of a sign-in in flight (`HttpOnly`, `SameSite=Lax`, 10 minutes). */
export const BINDING_COOKIE = "occ_oidc";
const BINDING_PATH = "/auth/oidc";

const tags = ["auth"];
const config = { public: true };

const StartQuery = Closed({
  provider: literalUnion(SIGN_IN_PROVIDERS),
  redirect: Type.Optional(Type.String({ maxLength: 2000 })),
  cliPort: Type.Optional(Type.Integer({ minimum: 1024, maximum: 65535 })),
  cliChallenge: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9_-]{43}$" })),
});
const CallbackQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ maxLength: 512 })),
    code: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: Type.String({ maxLength: 2048 }) },
);
const CliTokenBody = Closed({
  code: Type.String({ minLength: 20, maxLength: 200 }),
  verifier: Type.String({ minLength: 43, maxLength: 128, pattern: "^[A-Za-z0-9._~-]+$" }),
});
const CliTokenSchema = Closed({ token: Type.String(), expiresAt: DateTime });

export const oidcRoutes: FastifyPluginCallbackTypebox<{
  readonly db: Db;
  readonly auth: AuthRuntime;
  readonly providers: ExternalProviders;
}> = (app, { db, auth, providers }, done) => {
  const baseUrl = auth.settings.baseUrl;
  if (baseUrl === null) {
    done(new Error("auth.baseUrl is required with an external sign-in provider"));
    return;
  }
  const secure = baseUrl.protocol === "https:";
  /** The flow's dependencies for one request (its sessions record where it came from). */
  const depsFor = (request: FastifyRequest): OidcDeps => ({
    db,
    providers,
    baseUrl: baseUrl.origin,
    startSession: (input) =>
      startSession(
        { db, lifetimes: auth.lifetimes },
        {
          ...input,
          clientAddress: request.ip,
          userAgent: request.headers["user-agent"]?.slice(0, 500) ?? null,
          requestId: request.id,
        },
      ),
  });
  const bindingCookie = { httpOnly: true, sameSite: "lax", secure, path: BINDING_PATH } as const;

  app.get(
    "/auth/oidc/start",
    {
      config,
      schema: {
        tags,
        security: noSecurity,
        ...op(
          "startExternalSignIn",
          "Start single sign-on",
          "Sign in through an external provider: redirects to it (302).",
        ),
        querystring: StartQuery,
        response: errorResponses(404),
      },
    },
    async (request, reply) => {
      const { provider, redirect, cliPort, cliChallenge } = request.query;
      if ((cliPort === undefined) !== (cliChallenge === undefined)) {
        throw new ServiceError("INVALID_REQUEST", "cliPort and cliChallenge go together.");
      }
      const started = await beginSignIn(depsFor(request), {
        provider,
        returnTo: redirect,
        cli:
          cliPort === undefined || cliChallenge === undefined
            ? undefined
            : { port: cliPort, challenge: cliChallenge },
      });
      return reply
        .setCookie(BINDING_COOKIE, started.browserBinding, { ...bindingCookie, maxAge: 600 })
        .header("cache-control", "no-store")
        .redirect(started.authorizationUrl, 302);
    },
  );

  app.get(
    CALLBACK_PATH,
    {
      config,
      schema: {
        tags,
        security: noSecurity,
        ...op(
          "completeExternalSignIn",
          "Complete single sign-on",
          "Where the provider sends the person back; sets the session cookie (302).",
        ),
        querystring: CallbackQuery,
        response: errorResponses(403),
      },
    },
    async (request, reply) => {
      const raw = request.url.indexOf("?");
      const query = new URLSearchParams(raw < 0 ? "" : request.url.slice(raw + 1));
      const deps = depsFor(request);
      void reply.clearCookie(BINDING_COOKIE, bindingCookie).header("cache-control", "no-store");
      try {
        const done = await completeSignIn(deps, {
          query,
          browserBinding: request.cookies[BINDING_COOKIE],
          requestId: request.id,
        });
        if (done.kind === "cli") return await reply.redirect(done.redirect, 302);
        setSessionCookie(request, reply, auth.settings, done.session.token, done.session.expiresAt);
        return await reply.redirect(done.returnTo, 302);
      } catch (err) {
        if (!(err instanceof SignInRefused)) throw err;
        request.log.info({ refusal: err.refusal }, "sign-in refused");
        if (err.cliPort !== undefined) {
          // `occ login` is waiting on its loopback: it shows the person the reason.
          const to = new URL(`http://127.0.0.1:${err.cliPort}/callback`);
          to.searchParams.set("error", err.refusal);
          to.searchParams.set("reason", err.reason);
          return await reply.redirect(to.toString(), 302);
        }
        throw new ServiceError(
          err.refusal === "unknown_request" || err.refusal === "token_rejected"
            ? "UNAUTHENTICATED"
            : "FORBIDDEN",
          err.reason,
        );
      }
    },
  );

  app.post(
    "/auth/oidc/cli-token",
    {
      config,
      schema: {
        tags,
        security: noSecurity,
        ...op(
          "exchangeCliSignIn",
          "Exchange the CLI's sign-in code",
          "occ login: exchange the loopback hand-off code and the CLI's PKCE verifier for a session.",
        ),
        body: CliTokenBody,
        response: { 200: DataEnvelope(CliTokenSchema), ...errorResponses(413, 415) },
      },
    },
    async (request, reply) => {
      const session = await exchangeCliHandoff(depsFor(request), request.body);
      // The CLI presents the signed value as its bearer credential, as after a password sign-in.
      return envelope(request, {
        token: reply.signCookie(session.token),
        expiresAt: session.expiresAt.toISOString(),
      });
    },
  );
  done();
};
