/**
 * Password sign-in and password administration (issue 42).
 *
 * A refused sign-in — unknown user, wrong password, a service principal, a user without a
 * password, or a non-recovery user while `passwordSignIn` is `recovery-only` — is answered
 * identically (401, one message) after exactly one argon2id verification, so neither the
 * answer nor its timing tells which; the audit event records the reason.
 */
import type { PasswordSignInMode } from "../../config/auth-settings.js";
import type { Db } from "../../store/db.js";
import type { PrincipalId } from "../../domain/iam/ids.js";
import { checkPassword, setPassword } from "../../iam/passwords.js";
import { getPrincipal } from "../../iam/principals.js";
import { revokePrincipalSessions } from "../../iam/sessions.js";
import type { Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";
import { mutate } from "../iam/administer.js";
import {
  recordSignInFailure,
  startSession,
  type SessionLifetimes,
  type StartedSession,
} from "./sessions.js";

export interface PasswordSignInDeps {
  readonly db: Db;
  readonly lifetimes: SessionLifetimes;
  readonly passwordSignIn: PasswordSignInMode;
  /** The break-glass principal, who may always sign in with a password. */
  readonly recoveryUserId: string | null;
}

export interface PasswordSignInInput {
  readonly user: string;
  readonly password: string;
  readonly clientAddress: string | null;
  readonly userAgent: string | null;
  readonly requestId?: string | undefined;
}

/** The one answer to every refused password sign-in. */
export function signInRefused(mode: PasswordSignInMode): ServiceError {
  return new ServiceError(
    "UNAUTHENTICATED",
    mode === "recovery-only"
      ? "The user name or password is wrong, or this account must sign in with single sign-on."
      : "The user name or password is wrong.",
  );
}

/** Signs `user` in with `password`, or throws {@link signInRefused}. */
export async function passwordSignIn(
  deps: PasswordSignInDeps,
  input: PasswordSignInInput,
): Promise<StartedSession> {
  const check = await checkPassword(deps.db, input.user, input.password);
  let reason: string | undefined;
  if (check.outcome === "rejected") reason = check.reason;
  else if (deps.passwordSignIn === "recovery-only" && check.principalId !== deps.recoveryUserId) {
    reason = "password_sign_in_recovery_only";
  }
  if (check.outcome === "verified" && reason === undefined) {
    return startSession(deps, {
      principalId: check.principalId,
      method: "password",
      clientAddress: input.clientAddress,
      userAgent: input.userAgent,
      requestId: input.requestId,
    });
  }
  await recordSignInFailure(deps.db, {
    method: "password",
    principalId: check.principalId,
    reason: reason ?? "refused",
    clientAddress: input.clientAddress,
    requestId: input.requestId,
  });
  throw signInRefused(deps.passwordSignIn);
}

/**
 * Sets or resets a user's password (`principals.set_password`) and ends the user's sessions,
 * so a reset locks out whoever knew the old one. 404 for no such principal, 409 for a service.
 */
export function setPasswordAsAdministrator(
  db: Db,
  caller: Caller,
  principalId: PrincipalId,
  password: string,
): Promise<void> {
  return mutate(
    db,
    caller,
    { action: "principals.set_password", resourceKind: "principal" },
    async (tx) => {
      const principal = await getPrincipal(tx, principalId, { forUpdate: true });
      if (principal === undefined) throw new ServiceError("NOT_FOUND", "No such principal.");
      if (principal.kind !== "user") {
        throw new ServiceError(
          "RESOURCE_CONFLICT",
          "Only users have passwords; a service principal authenticates with an API key.",
        );
      }
      await setPassword(tx, principalId, password);
      const ended = await revokePrincipalSessions(tx, principalId);
      return { result: undefined, resourceId: principalId, details: { sessionsEnded: ended } };
    },
  );
}
