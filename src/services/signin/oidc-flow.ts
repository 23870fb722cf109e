/**
 * OIDC / Google sign-in (issue 42): the authorization code flow with PKCE, run by
 * `openid-client` (discovery, the token request, and the ID token's issuer, audience,
 * signature, expiry and nonce checks — never by hand).
 *
 * - {@link beginSignIn}: a fresh `state`, `nonce` and PKCE verifier, stored server-side
 *   (the state as a hash) and bound to the browser by a random cookie value; the provider's
 *   authorization URL to redirect to.
 * - {@link completeSignIn}: the callback. The request named by `state` is consumed first
 *   (a replayed callback finds nothing), must belong to this browser and be fresh; then the
 *   code is exchanged and the ID token validated with that request's verifier and nonce; then
 *   the person is admitted (allow-lists, principal, groupRoles).
 * - A sign-in started by `occ login` ends with a one-time hand-off code sent to the CLI's
 *   loopback listener, exchanged by {@link exchangeCliHandoff} with the CLI's own PKCE
 *   verifier for a session.
 */
import { createHash, randomBytes } from "node:crypto";
import * as client from "openid-client";
import type { SignInProvider } from "../../domain/signin/allow-list.js";
import {
  consumeCliHandoff,
  consumeOidcRequest,
  saveCliHandoff,
  saveOidcRequest,
  sha256Hex,
} from "../../iam/oidc-requests.js";
import type { PrincipalId } from "../../domain/iam/ids.js";
import type { Db } from "../../store/db.js";
import { ServiceError } from "../errors.js";
import { admitIdentity } from "./admit-identity.js";
import { scopesOf, type ExternalProviders } from "./external-providers.js";

/** How long a person has to finish signing in at the provider. */
const REQUEST_TTL_SECONDS = 600;

export const CALLBACK_PATH = "/auth/oidc/callback";

/** Starts a session for an admitted principal (the session service of the API process). */
export type StartSession = (input: {
  readonly principalId: PrincipalId;
  readonly method: SignInProvider;
}) => Promise<{ readonly token: string; readonly expiresAt: Date }>;

export interface OidcDeps {
  readonly db: Db;
  readonly providers: ExternalProviders;
  /** `auth.baseUrl`: where people reach the API; the callback is under it. */
  readonly baseUrl: string;
  readonly startSession: StartSession;
}

/** A sign-in refused with a reason for the person (the refusal is audited already). */
export class SignInRefused extends Error {
  constructor(
    readonly refusal: string,
    readonly reason: string,
    /** Set when `occ login` started the sign-in: its loopback port, to tell it the refusal. */
    readonly cliPort?: number,
  ) {
    super(reason);
  }
}

const random = () => randomBytes(32).toString("base64url");

/** A `returnTo` path on this site, or `/` (never another origin). */
export function safeReturnTo(value: string | undefined): string {
  if (value === undefined || !value.startsWith("/") || value.startsWith("//")) return "/";
  if (value.includes("\\") || /[^\x20-\x7e]/.test(value) || value.length > 2000) return "/";
  return value;
}

export async function beginSignIn(
  deps: OidcDeps,
  input: {
    readonly provider: SignInProvider;
    readonly returnTo?: string | undefined;
    readonly cli?: { readonly port: number; readonly challenge: string } | undefined;
  },
): Promise<{ readonly authorizationUrl: string; readonly browserBinding: string }> {
  const settings = deps.providers.get(input.provider);
  if (settings === undefined) {
    throw new ServiceError("NOT_FOUND", `Sign-in through ${input.provider} is not enabled here.`);
  }
  const config = await deps.providers.configuration(settings).catch((err: unknown) => {
    throw new ServiceError(
      "DEPENDENCY_UNAVAILABLE",
      `The identity provider ${settings.issuer} could not be reached (${err instanceof Error ? err.message : String(err)}).`,
    );
  });
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const browserBinding = random();
  await saveOidcRequest(deps.db, {
    state,
    provider: input.provider,
    browserBinding,
    codeVerifier,
    nonce,
    returnTo: safeReturnTo(input.returnTo),
    cli: input.cli ?? null,
    ttlSeconds: REQUEST_TTL_SECONDS,
  });
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: new URL(CALLBACK_PATH, deps.baseUrl).toString(),
    scope: scopesOf(settings),
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce,
    ...(input.provider === "google" && settings.allowLists.allowedDomains.length === 1
      ? { hd: settings.allowLists.allowedDomains[0] ?? "" }
      : {}),
  });
  return { authorizationUrl: url.toString(), browserBinding };
}

export type CompletedSignIn =
  | {
      readonly kind: "browser";
      readonly session: { readonly token: string; readonly expiresAt: Date };
      readonly returnTo: string;
    }
  | { readonly kind: "cli"; readonly redirect: string };

export async function completeSignIn(
  deps: OidcDeps,
  input: {
    /** The callback's query string, as received. */
    readonly query: URLSearchParams;
    /** The browser binding cookie's value, if the request carried one. */
    readonly browserBinding: string | undefined;
    readonly requestId: string | undefined;
  },
): Promise<CompletedSignIn> {
  const state = input.query.get("state");
  const stale = () =>
    new SignInRefused(
      "unknown_request",
      "This sign-in link is not valid (used already, expired, or started elsewhere); start again.",
    );
  if (state === null || state.length === 0 || state.length > 512) throw stale();
  const request = await consumeOidcRequest(deps.db, state);
  if (request === undefined || request.expired) throw stale();
  if (
    input.browserBinding === undefined ||
    sha256Hex(input.browserBinding) !== request.browserSha256
  ) {
    throw stale();
  }
  const settings = deps.providers.get(request.provider);
  if (settings === undefined) throw stale();
  const providerError = input.query.get("error");
  const cliPort = request.cli?.port;
  if (providerError !== null) {
    throw new SignInRefused(
      "provider_error",
      `The identity provider refused: ${providerError.slice(0, 100)}.`,
      cliPort,
    );
  }
  const config = await deps.providers.configuration(settings);
  const callbackUrl = new URL(CALLBACK_PATH, deps.baseUrl);
  callbackUrl.search = input.query.toString();
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: request.codeVerifier,
      expectedState: state,
      expectedNonce: request.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    const code = err instanceof Error && "code" in err ? String(err.code) : "rejected";
    throw new SignInRefused(
      "token_rejected",
      `The sign-in could not be verified (${code}); start again.`,
      cliPort,
    );
  }
  const claims = tokens.claims();
  if (claims === undefined)
    throw new SignInRefused("token_rejected", "No ID token; start again.", cliPort);
  // Claims the ID token lacks (many providers keep e-mail and groups for userinfo) are read
  // from userinfo, whose subject openid-client checks against the ID token's; the ID token's
  // own claims win.
  let all: Record<string, unknown> = claims;
  const wantsGroups = scopesOf(settings).includes("groups");
  if (claims.email === undefined || (wantsGroups && claims.groups === undefined)) {
    const info = await client
      .fetchUserInfo(config, tokens.access_token, claims.sub)
      .catch(() => undefined);
    if (info !== undefined) all = { ...info, ...claims };
  }
  const groups = Array.isArray(all.groups)
    ? all.groups.filter((g): g is string => typeof g === "string")
    : [];
  const admitted = await admitIdentity(
    deps.db,
    settings,
    {
      issuer: claims.iss,
      subject: claims.sub,
      claims: {
        email: typeof all.email === "string" ? all.email : undefined,
        emailVerified: all.email_verified === true,
        groups,
        hostedDomain: typeof claims.hd === "string" ? claims.hd : undefined,
      },
    },
    input.requestId,
  );
  if (!admitted.admitted) {
    throw new SignInRefused(admitted.refusal, admitted.reason, cliPort);
  }
  if (request.cli !== null) {
    const code = random();
    await saveCliHandoff(deps.db, {
      code,
      principalId: admitted.principalId,
      provider: request.provider,
      challenge: request.cli.challenge,
    });
    return { kind: "cli", redirect: `http://127.0.0.1:${request.cli.port}/callback?code=${code}` };
  }
  const session = await deps.startSession({
    principalId: admitted.principalId,
    method: request.provider,
  });
  return { kind: "browser", session, returnTo: request.returnTo };
}

/** `occ login`: the hand-off code and the CLI's PKCE verifier for a session. */
export async function exchangeCliHandoff(
  deps: OidcDeps,
  input: { readonly code: string; readonly verifier: string },
): Promise<{ readonly token: string; readonly expiresAt: Date }> {
  const handoff = await consumeCliHandoff(deps.db, input.code);
  const challenge = createHash("sha256").update(input.verifier, "ascii").digest("base64url");
  if (handoff === undefined || handoff.expired || challenge !== handoff.challenge) {
    throw new ServiceError(
      "UNAUTHENTICATED",
      "This sign-in hand-off is not valid (used already, expired, or not this CLI's); run occ login again.",
    );
  }
  return deps.startSession({ principalId: handoff.principalId, method: handoff.provider });
}
