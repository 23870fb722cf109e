/**
 * The Installation configuration's `auth` section (issue 42): how people sign in. Absent, every
 * user may sign in with a password, no external provider is enabled and the session cookie is
 * set for development (without `Secure` only when the request came to a loopback address).
 *
 * Cross-field rules, checked at startup and named by key:
 * - an external provider (`google`, `oidc`) needs `recoveryUserId` (the break-glass account
 *   that may always use a password) and an `https://` `baseUrl`;
 * - `passwordSignIn: recovery-only` needs an external provider (or nobody else could sign in);
 * - an `http://` `baseUrl` is allowed only on a loopback host;
 * - `auth.oidc.issuer` must be an `https://` URL.
 *
 * Test only: with `OCC_TEST_INSECURE_OIDC=1` in the environment ({@link TEST_INSECURE_OIDC_ENV}),
 * an `http://127.0.0.1` issuer and an `http://` loopback `baseUrl` are accepted with a provider,
 * so the tests can run a real OpenID Provider on a loopback port. Never set it in a deployment.
 */
import { Type, type Static } from "@sinclair/typebox";
import type { ConfigurationProblem } from "../domain/index.js";

const FilePath = Type.String({ minLength: 1 });
const Strings = Type.Array(Type.String({ minLength: 1 }));

const GoogleSchema = Type.Object(
  {
    clientIdFile: FilePath,
    clientSecretFile: FilePath,
    allowedEmails: Type.Optional(Strings),
    allowedDomains: Type.Optional(Strings),
  },
  { additionalProperties: false },
);

const GroupRoleSchema = Type.Object(
  {
    group: Type.String({ minLength: 1 }),
    role: Type.String({ minLength: 1 }),
    namespaceId: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const OidcSchema = Type.Object(
  {
    issuer: Type.String({ minLength: 1 }),
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    clientIdFile: FilePath,
    clientSecretFile: FilePath,
    allowedEmails: Type.Optional(Strings),
    allowedDomains: Type.Optional(Strings),
    allowedGroups: Type.Optional(Strings),
    groupRoles: Type.Optional(Type.Array(GroupRoleSchema)),
  },
  { additionalProperties: false },
);

export const PASSWORD_SIGN_IN_MODES = ["all", "recovery-only"] as const;
export type PasswordSignInMode = (typeof PASSWORD_SIGN_IN_MODES)[number];

/** `auth` as the file holds it. */
export const AuthSectionSchema = Type.Object(
  {
    baseUrl: Type.Optional(Type.String({ minLength: 1 })),
    sessionKeyFile: Type.Optional(FilePath),
    recoveryUserId: Type.Optional(Type.String({ pattern: "^prn_[a-zA-Z0-9_-]{1,64}$" })),
    passwordSignIn: Type.Optional(Type.Union(PASSWORD_SIGN_IN_MODES.map((m) => Type.Literal(m)))),
    google: Type.Optional(GoogleSchema),
    oidc: Type.Optional(OidcSchema),
  },
  { additionalProperties: false },
);
export type AuthSection = Static<typeof AuthSectionSchema>;

export type GoogleSettings = Static<typeof GoogleSchema>;
export type OidcSettings = Static<typeof OidcSchema>;

/** The validated `auth` section every process runs with. */
export interface AuthSettings {
  /** The URL people open (its origin is the only one a cookie-authenticated write may come from). */
  readonly baseUrl: URL | null;
  /** The session signing key file; `null`: a random key per process (development only). */
  readonly sessionKeyFile: string | null;
  readonly recoveryUserId: string | null;
  readonly passwordSignIn: PasswordSignInMode;
  readonly google: GoogleSettings | null;
  readonly oidc: OidcSettings | null;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** True for `localhost`, `127.0.0.1` and `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The environment variable of the test-only loopback exception (see the module comment). */
export const TEST_INSECURE_OIDC_ENV = "OCC_TEST_INSECURE_OIDC";

const LOOPBACK_ISSUER = /^http:\/\/127\.0\.0\.1(:\d+)?(\/|$)/;

/** The validated settings, or every problem with the section, each naming its key. */
export function validateAuthSection(
  section: AuthSection | undefined,
  testInsecureLoopback = false,
):
  | { readonly ok: true; readonly value: AuthSettings }
  | { readonly ok: false; readonly error: ConfigurationProblem[] } {
  const s = section ?? {};
  const problems: ConfigurationProblem[] = [];
  const problem = (key: string, message: string): void => {
    problems.push({ key, message: `${key}: ${message}` });
  };
  let baseUrl: URL | null = null;
  if (s.baseUrl !== undefined) {
    try {
      baseUrl = new URL(s.baseUrl);
    } catch {
      problem(
        "auth.baseUrl",
        `not a URL (${JSON.stringify(s.baseUrl)}); e.g. https://occ.example.com`,
      );
    }
  }
  if (baseUrl !== null) {
    if (baseUrl.protocol !== "https:" && baseUrl.protocol !== "http:") {
      problem("auth.baseUrl", "must start with https:// (or http:// on a loopback address)");
    } else if (baseUrl.protocol === "http:" && !isLoopbackHost(baseUrl.hostname)) {
      problem("auth.baseUrl", "http:// is allowed only on a loopback address; use https://");
    }
    if (baseUrl.pathname !== "/" || baseUrl.search !== "" || baseUrl.hash !== "") {
      problem("auth.baseUrl", "must be an origin only (scheme, host, port), without a path");
    }
  }
  const providers = [
    s.google === undefined ? [] : ["auth.google"],
    s.oidc === undefined ? [] : ["auth.oidc"],
  ].flat();
  if (providers.length > 0) {
    const which = providers.join(" and ");
    if (s.recoveryUserId === undefined) {
      problem(
        "auth.recoveryUserId",
        `required when ${which} is enabled: the principal ID (prn_…) of the break-glass account that may always sign in with a password`,
      );
    }
    const loopbackTest =
      testInsecureLoopback && baseUrl?.protocol === "http:" && isLoopbackHost(baseUrl.hostname);
    if (baseUrl?.protocol !== "https:" && !loopbackTest) {
      problem(
        "auth.baseUrl",
        `an https:// URL is required when ${which} is enabled (the provider redirects back to it)`,
      );
    }
  }
  if (s.oidc !== undefined) {
    const issuer = s.oidc.issuer;
    const loopbackIssuer = testInsecureLoopback && LOOPBACK_ISSUER.test(issuer);
    if (!issuer.startsWith("https://") && !loopbackIssuer) {
      problem(
        "auth.oidc.issuer",
        `must be an https:// URL (the provider's issuer), not ${JSON.stringify(issuer)}`,
      );
    }
  }
  const passwordSignIn = s.passwordSignIn ?? "all";
  if (passwordSignIn === "recovery-only") {
    if (providers.length === 0) {
      problem(
        "auth.passwordSignIn",
        "recovery-only needs auth.oidc or auth.google: otherwise nobody but the recovery account could sign in",
      );
    }
    if (s.recoveryUserId === undefined && providers.length === 0) {
      problem("auth.recoveryUserId", "required with auth.passwordSignIn: recovery-only");
    }
  }
  if (problems.length > 0) return { ok: false, error: problems };
  return {
    ok: true,
    value: {
      baseUrl,
      sessionKeyFile: s.sessionKeyFile ?? null,
      recoveryUserId: s.recoveryUserId ?? null,
      passwordSignIn,
      google: s.google ?? null,
      oidc: s.oidc ?? null,
    },
  };
}
