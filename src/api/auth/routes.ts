/**
 * `/auth/*` (issue 42): password sign-in, sign-out, who-am-I and the enabled sign-in methods.
 *
 * `POST /auth/password` is rate-limited twice (`@fastify/rate-limit`): per client address
 * before the body is read, and per account (the user name as sent, lowercased) after it; the
 * attempt beyond either limit is answered 429 `TOO_MANY_REQUESTS` in the error envelope.
 * Limits are per API process.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import rateLimit from "@fastify/rate-limit";
import type { Db } from "../../services/handles.js";
import { DataEnvelope } from "../../contract/envelopes.js";
import { PasswordSignInBodySchema, ProvidersSchema, WhoAmISchema } from "../../contract/auth.js";
import { whoAmI } from "../../services/signin/whoami.js";
import { passwordSignIn } from "../../services/signin/password.js";
import { signOut } from "../../services/signin/sessions.js";
import { ServiceError } from "../../services/errors.js";
import { errorResponses, noSecurity, op, publicErrorResponses, security } from "../schemas.js";
import { callerOf, envelope } from "../request-context.js";
import { checkOrigin, clearSessionCookie, setSessionCookie } from "./session-auth.js";
import type { AuthRuntime } from "../../services/signin/runtime.js";
import { fieldOf } from "../../domain/input/unknowns.js";

const tags = ["auth"];

function limiter(
  app: Parameters<FastifyPluginCallbackTypebox>[0],
  limit: { readonly max: number; readonly windowMs: number },
  key: (request: FastifyRequest) => string,
): (request: FastifyRequest) => Promise<void> {
  const check = app.createRateLimit({
    max: limit.max,
    timeWindow: limit.windowMs,
    keyGenerator: key,
  });
  return async (request) => {
    const result = await check(request);
    if (!result.isAllowed && result.isExceeded) {
      throw new ServiceError("TOO_MANY_REQUESTS", "Too many sign-in attempts; wait and try again.");
    }
  };
}

export const authRoutes: FastifyPluginCallbackTypebox<{
  readonly db: Db;
  readonly auth: AuthRuntime;
}> = (app, { db, auth }, done) => {
  const settings = auth.settings;
  app.register(rateLimit, { global: false }).after(() => {
    const perAddress = limiter(app, auth.limits.perAddress, (r) => `address:${r.ip}`);
    const perAccount = limiter(app, auth.limits.perAccount, (r) => {
      const user = fieldOf(r.body, "user");
      return `account:${typeof user === "string" ? user.toLowerCase() : ""}`;
    });
    app.post(
      "/auth/password",
      {
        config: { public: true },
        onRequest: perAddress,
        preHandler: perAccount,
        schema: {
          tags,
          security: noSecurity,
          ...op(
            "signInWithPassword",
            "Sign in with a password",
            "Sign in with a user name and password: 204 and the occ_session cookie. Every refusal is the same 401.",
          ),
          body: PasswordSignInBodySchema,
          response: { 204: { type: "null" }, ...errorResponses(403, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        checkOrigin(request, settings, true);
        const started = await passwordSignIn(
          {
            db,
            lifetimes: auth.lifetimes,
            passwordSignIn: settings.passwordSignIn,
            recoveryUserId: settings.recoveryUserId,
          },
          {
            user: request.body.user,
            password: request.body.password,
            clientAddress: request.ip,
            userAgent: request.headers["user-agent"] ?? null,
            requestId: request.id,
          },
        );
        setSessionCookie(request, reply, settings, started.token, started.expiresAt);
        return reply.status(204).send();
      },
    );
  });

  app.post(
    "/auth/logout",
    {
      schema: {
        tags,
        security,
        ...op("signOut", "Sign out", "End the caller's session and clear the cookie."),
        response: { 204: { type: "null" }, ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      await signOut(db, callerOf(request));
      clearSessionCookie(request, reply, settings);
      return reply.status(204).send();
    },
  );

  app.get(
    "/auth/whoami",
    {
      schema: {
        tags,
        security,
        ...op(
          "whoAmI",
          "Who am I",
          "Who the caller is, how it signed in (an API key or a session, and its expiry) and its Installation-wide permissions.",
        ),
        response: { 200: DataEnvelope(WhoAmISchema), ...errorResponses() },
      },
    },
    async (request) => envelope(request, await whoAmI(db, callerOf(request))),
  );

  app.get(
    "/auth/providers",
    {
      config: { public: true },
      schema: {
        tags,
        security: noSecurity,
        ...op(
          "listSignInProviders",
          "List sign-in methods",
          "The enabled sign-in methods, for the console's sign-in page.",
        ),
        response: { 200: DataEnvelope(ProvidersSchema), ...publicErrorResponses() },
      },
    },
    (request) =>
      envelope(request, {
        password: settings.passwordSignIn,
        oidc:
          settings.oidc === null
            ? null
            : { displayName: settings.oidc.displayName ?? "Single sign-on" },
        google: settings.google !== null,
      }),
  );
  done();
};
