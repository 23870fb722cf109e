/**
 * Schemas of the sign-in routes (issue 42): password sign-in, sign-out, who-am-I, the enabled
 * sign-in methods, and the administrator's password and session routes. No response ever
 * carries a password, a session token or a hash.
 */
import { Type, type Static } from "@sinclair/typebox";
import { iamIdPattern } from "../domain/iam/ids.js";
import { PRINCIPAL_KINDS, SESSION_METHODS } from "../domain/iam/vocabulary.js";

/** The permissions whoami reports: those only an Installation-wide binding grants. */
export const INSTALLATION_PERMISSION_NAMES = [
  "installation:administer",
  "namespace:create",
] as const;
import { Closed, DateTime, IdString, literalUnion, Nullable } from "./envelopes.js";
import { ApiKeyIdSchema, PrincipalIdSchema } from "./iam.js";

export const SessionIdSchema = IdString(iamIdPattern("session"), "A session ID (`ses_…`).");

/** The shortest and longest password an administrator may set (in characters). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/** The name of the session cookie. */
export const SESSION_COOKIE = "occ_session";

export const PasswordSignInBodySchema = Closed(
  {
    user: Type.String({ minLength: 1, maxLength: 200, description: "The principal's name." }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
  },
  { examples: [{ user: "admin", password: "correct horse battery staple" }] },
);

export const SetPasswordBodySchema = Closed(
  {
    password: Type.String({
      minLength: PASSWORD_MIN_LENGTH,
      maxLength: PASSWORD_MAX_LENGTH,
      description: `${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters. Stored only as an argon2id hash.`,
    }),
  },
  { examples: [{ password: "correct horse battery staple" }] },
);

export const CredentialSchema = Type.Union([
  Closed({ kind: Type.Literal("api_key"), keyId: ApiKeyIdSchema }),
  Closed({
    kind: Type.Literal("session"),
    sessionId: SessionIdSchema,
    method: literalUnion(SESSION_METHODS),
    expiresAt: DateTime,
  }),
]);

export const WhoAmISchema = Closed({
  principal: Closed({
    id: PrincipalIdSchema,
    kind: literalUnion(PRINCIPAL_KINDS),
    name: Type.String(),
  }),
  credential: CredentialSchema,
  installationPermissions: Type.Array(literalUnion(INSTALLATION_PERMISSION_NAMES), {
    description:
      "The Installation-wide permissions the caller holds now (what a console offers); the API still decides every request.",
  }),
});
export type WhoAmIView = Static<typeof WhoAmISchema>;

export const ProvidersSchema = Closed({
  password: literalUnion(["all", "recovery-only"] as const, {
    description: "Who may sign in with a password: everyone, or only the recovery account.",
  }),
  oidc: Nullable(Closed({ displayName: Type.String() })),
  google: Type.Boolean(),
});
export type ProvidersView = Static<typeof ProvidersSchema>;

export const SessionSchema = Closed({
  id: SessionIdSchema,
  principalId: PrincipalIdSchema,
  method: literalUnion(SESSION_METHODS),
  clientAddress: Nullable(Type.String()),
  userAgent: Nullable(Type.String()),
  createdAt: DateTime,
  lastSeenAt: DateTime,
  expiresAt: DateTime,
  revokedAt: Nullable(DateTime),
});
export type SessionView = Static<typeof SessionSchema>;
