/**
 * What the API needs to run sign-in (issue 42): the `auth` settings, the session signing key
 * and the tunables (session lifetimes, sign-in attempt limits). Built at startup by the
 * process (main/auth-runtime.ts); tests build their own.
 */
import { randomBytes } from "node:crypto";
import type { AuthSettings } from "../../config/auth-settings.js";
import { DEFAULT_SESSION_LIFETIMES, type SessionLifetimes } from "./sessions.js";

export { isLoopbackHost, type AuthSettings } from "../../config/auth-settings.js";

/** Attempts allowed per window, per account and per client address. */
export interface SignInLimits {
  readonly perAccount: { readonly max: number; readonly windowMs: number };
  readonly perAddress: { readonly max: number; readonly windowMs: number };
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perAccount: { max: 10, windowMs: 15 * 60_000 },
  perAddress: { max: 30, windowMs: 60_000 },
};

/** What the API needs to run sign-in: settings, the session key and the tunables. */
export interface AuthRuntime {
  readonly settings: AuthSettings;
  /** The session signing key (≥ 32 bytes). */
  readonly sessionKey: Buffer;
  readonly lifetimes: SessionLifetimes;
  readonly limits: SignInLimits;
}

/** Development defaults: no `auth` section, a random key of this process only. */
export function developmentAuthRuntime(): AuthRuntime {
  return {
    settings: {
      baseUrl: null,
      sessionKeyFile: null,
      recoveryUserId: null,
      passwordSignIn: "all",
      google: null,
      oidc: null,
    },
    sessionKey: randomBytes(32),
    lifetimes: DEFAULT_SESSION_LIFETIMES,
    limits: DEFAULT_SIGN_IN_LIMITS,
  };
}
