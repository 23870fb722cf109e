/**
 * Authentication (control-plane.md §3): who a presented API key or session token belongs to,
 * as the {@link Caller} the use cases take. With the process's policy cache, keys and sessions
 * are served from it; without one, from the database. A database failure while checking is
 * `DEPENDENCY_UNAVAILABLE` (the caller may well be legitimate); a refusal is returned with its
 * reason for the log (never the key), not thrown, so the transport decides what it answers.
 */
import { authenticateApiKey } from "../../iam/api-keys.js";
import type { PolicyCache } from "../../iam/policy-cache.js";
import { authenticateSession } from "../../iam/sessions.js";
import type { Db } from "../../store/db.js";
import type { Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";

export { bearerToken } from "../../iam/api-key-secret.js";
export { isSessionToken } from "../../iam/sessions.js";

/** The caller an API key authenticates, or why it is refused. */
export type KeyAuthentication =
  | { readonly outcome: "authenticated"; readonly caller: Caller }
  | { readonly outcome: "rejected"; readonly reason: string };

async function checked<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw new ServiceError(
      "DEPENDENCY_UNAVAILABLE",
      `The ${what} could not be checked; retry later.`,
      { cause: err },
    );
  }
}

/** The caller the bearer API key `presented` authenticates, for request `requestId`. */
export async function authenticateKey(
  db: Db,
  policy: PolicyCache | undefined,
  presented: string,
  requestId: string,
): Promise<KeyAuthentication> {
  const result = await checked("API key", () =>
    policy === undefined ? authenticateApiKey(db, presented) : policy.authenticate(presented),
  );
  if (result.outcome === "rejected") return result;
  return {
    outcome: "authenticated",
    caller: {
      principalId: result.principal.id,
      requestId,
      policy,
      credential: { kind: "api_key", keyId: result.principal.keyId },
    },
  };
}

/** The caller the live session `token` belongs to, or `undefined` (ended or unknown). */
export async function authenticateSessionToken(
  db: Db,
  policy: PolicyCache | undefined,
  token: string,
  requestId: string,
): Promise<Caller | undefined> {
  const found = await checked("session", () =>
    policy === undefined ? authenticateSession(db, token) : policy.authenticateSession(token),
  );
  if (found === undefined) return undefined;
  return {
    principalId: found.principal.id,
    requestId,
    policy,
    credential: {
      kind: "session",
      sessionId: found.sessionId,
      method: found.method,
      expiresAt: found.until,
    },
  };
}
