/**
 * Who may sign in through an external provider (OIDC or Google): the allow-list verdict over
 * the claims of a validated ID token. Pure; the token itself is validated by `openid-client`
 * before any claim reaches this decision.
 *
 * Rules (fail closed):
 * - the e-mail counts only when the provider says it is verified (`email_verified: true`);
 * - Google: when `allowedDomains` is set, the `hd` (hosted domain) claim must be one of them —
 *   an address at that domain without `hd` is a consumer account, not the organisation's;
 * - an identity is allowed when its e-mail is in `allowedEmails`, OR its e-mail's domain is in
 *   `allowedDomains`, OR one of its `groups` is in `allowedGroups`;
 * - every list empty → nobody is allowed (an enabled provider never admits the whole world).
 */

export const SIGN_IN_PROVIDERS = ["oidc", "google"] as const;
export type SignInProvider = (typeof SIGN_IN_PROVIDERS)[number];

/** The allow-lists of one provider, as configured. */
export interface AllowLists {
  readonly allowedEmails: readonly string[];
  readonly allowedDomains: readonly string[];
  /** OIDC only; Google has no `groups` claim. */
  readonly allowedGroups: readonly string[];
}

/** The claims the verdict reads, already taken from a validated ID token (or userinfo). */
export interface IdentityClaims {
  readonly email: string | undefined;
  readonly emailVerified: boolean;
  readonly groups: readonly string[];
  /** Google's hosted domain claim. */
  readonly hostedDomain: string | undefined;
}

/** Stable refusal codes; each has a reason shown to the person and audited. */
export const SIGN_IN_REFUSALS = [
  "no_allow_list",
  "email_unverified",
  "hosted_domain_mismatch",
  "not_allowed",
] as const;
export type SignInRefusal = (typeof SIGN_IN_REFUSALS)[number];

export type AllowVerdict =
  | { readonly allowed: true; readonly by: "email" | "domain" | "group" }
  | { readonly allowed: false; readonly refusal: SignInRefusal; readonly reason: string };

function lower(values: readonly string[]): Set<string> {
  return new Set(values.map((v) => v.trim().toLowerCase()));
}

/** The domain of an e-mail address (after the last `@`), lowercase; undefined if none. */
export function emailDomain(email: string): string | undefined {
  const at = email.lastIndexOf("@");
  if (at <= 0 || at === email.length - 1) return undefined;
  return email.slice(at + 1).toLowerCase();
}

function refuse(refusal: SignInRefusal, reason: string): AllowVerdict {
  return { allowed: false, refusal, reason };
}

/** The verdict for one sign-in of `claims` through `provider` with `lists`. */
export function allowListVerdict(
  provider: SignInProvider,
  lists: AllowLists,
  claims: IdentityClaims,
): AllowVerdict {
  const emails = lower(lists.allowedEmails);
  const domains = lower(lists.allowedDomains);
  const groups = new Set(provider === "oidc" ? lists.allowedGroups : []);
  if (emails.size === 0 && domains.size === 0 && groups.size === 0) {
    return refuse(
      "no_allow_list",
      `Sign-in through ${provider} admits nobody: set allowedEmails, allowedDomains` +
        (provider === "oidc" ? " or allowedGroups" : "") +
        ` under auth.${provider} in the Installation configuration.`,
    );
  }
  if (provider === "google" && domains.size > 0) {
    const hd = claims.hostedDomain?.toLowerCase();
    if (hd === undefined || !domains.has(hd)) {
      return refuse(
        "hosted_domain_mismatch",
        "This Google account is not part of an allowed Google Workspace domain (hd claim).",
      );
    }
  }
  const email = claims.email?.trim().toLowerCase();
  const verified = email !== undefined && claims.emailVerified;
  if (verified && emails.has(email)) return { allowed: true, by: "email" };
  const domain = verified ? emailDomain(email) : undefined;
  if (domain !== undefined && domains.has(domain)) return { allowed: true, by: "domain" };
  if (claims.groups.some((g) => groups.has(g))) return { allowed: true, by: "group" };
  if (email !== undefined && !claims.emailVerified && (emails.size > 0 || domains.size > 0)) {
    return refuse(
      "email_unverified",
      "The identity provider has not verified this e-mail address.",
    );
  }
  return refuse(
    "not_allowed",
    "This account is not allowed to sign in (its e-mail, domain and groups are not on the allow-lists); ask an administrator.",
  );
}
