/**
 * OIDC and Google sign-in routes (issue 42), public (no API key): `GET /auth/oidc/start`
 * redirects to the provider, `GET /auth/oidc/callback` receives the person back, and
 * `POST /auth/oidc/cli-token` hands `occ login` its session. Query strings (state, code) are
 * never logged (`requestLogView`).
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { SIGN_IN_PROVIDERS } from "../../domain/signin/allow-list.js";
import {
  CALLBACK_PATH,
  SignInRefused,
  beginSignIn,
  completeSignIn,
  exchangeCliHandoff,
  type OidcDeps,
} from "../../services/signin/oidc-flow.js";
import { ServiceError } from "../../services/errors.js";
import { Closed, DataEnvelope, DateTime, literalUnion } from "../../contract/envelopes.js";
import { errorResponses } from "../schemas.js";
import { envelope } from "../request-context.js";
import { cookieValue, setCookie } from "./cookies.js";

/** The browser binding of a sign-in in flight. */
export const BINDING_COOKIE = "occ_oidc";
/** The session cookie (the session service's, set here after an external sign-in). */
export const SESSION_COOKIE = "occ_session";

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

export const oidcRoutes: FastifyPluginCallbackTypebox<{ readonly oidc: OidcDeps }> = (
  app,
  { oidc },
  done,
) => {
  const secure = oidc.baseUrl.startsWith("https:");

  app.get(
    "/auth/oidc/start",
    {
      config,
      schema: {
        tags,
        summary: "Sign in through an external provider: redirects to it (302).",
        querystring: StartQuery,
        response: errorResponses(404),
      },
    },
    async (request, reply) => {
      const { provider, redirect, cliPort, cliChallenge } = request.query;
      if ((cliPort === undefined) !== (cliChallenge === undefined)) {
        throw new ServiceError("INVALID_REQUEST", "cliPort and cliChallenge go together.");
      }
      const started = await beginSignIn(oidc, {
        provider,
        returnTo: redirect,
        cli:
          cliPort === undefined || cliChallenge === undefined
            ? undefined
            : { port: cliPort, challenge: cliChallenge },
      });
      return reply
        .header(
          "set-cookie",
          setCookie(BINDING_COOKIE, started.browserBinding, {
            path: "/auth/oidc",
            maxAgeSeconds: 600,
            secure,
          }),
        )
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
        summary: "Where the provider sends the person back; sets the session cookie (302).",
        querystring: CallbackQuery,
        response: errorResponses(403),
      },
    },
    async (request, reply) => {
      const raw = request.url.indexOf("?");
      const query = new URLSearchParams(raw < 0 ? "" : request.url.slice(raw + 1));
      const clear = setCookie(BINDING_COOKIE, "", { path: "/auth/oidc", maxAgeSeconds: 0, secure });
      try {
        const done = await completeSignIn(oidc, {
          query,
          browserBinding: cookieValue(request.headers.cookie, BINDING_COOKIE),
          requestId: request.id,
        });
        reply.header("cache-control", "no-store");
        if (done.kind === "cli")
          return await reply.header("set-cookie", clear).redirect(done.redirect, 302);
        const maxAge = Math.max(
          0,
          Math.floor((done.session.expiresAt.getTime() - Date.now()) / 1000),
        );
        return await reply
          .header("set-cookie", [
            clear,
            setCookie(SESSION_COOKIE, done.session.token, {
              path: "/",
              maxAgeSeconds: maxAge,
              secure,
            }),
          ])
          .redirect(done.returnTo, 302);
      } catch (err) {
        if (!(err instanceof SignInRefused)) throw err;
        request.log.info({ refusal: err.refusal }, "sign-in refused");
        reply.header("set-cookie", clear);
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
        summary: "occ login: exchange the loopback hand-off code and the CLI's PKCE verifier.",
        body: CliTokenBody,
        response: { 200: DataEnvelope(CliTokenSchema), ...errorResponses(413, 415) },
      },
    },
    async (request) => {
      const session = await exchangeCliHandoff(oidc, request.body);
      return envelope(request, {
        token: session.token,
        expiresAt: session.expiresAt.toISOString(),
      });
    },
  );
  done();
};
