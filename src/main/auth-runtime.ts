/**
 * The API process's sign-in runtime (issue 42), built at startup from the Installation
 * configuration's `auth` section and the environment:
 * - the session signing key from `auth.sessionKeyFile` (at least 32 bytes; refused by name
 *   otherwise). Without the file, the Installation's key stored in the database (created by
 *   the first API process), so every replica accepts every session (iam/session-signing-key.ts);
 * - session lifetimes: `OCC_SESSION_IDLE_SECONDS` (default 8 h), `OCC_SESSION_ABSOLUTE_SECONDS`
 *   (default 24 h);
 * - sign-in attempt limits: `OCC_SIGN_IN_ATTEMPTS_PER_ACCOUNT` (per 15 minutes, default 10) and
 *   `OCC_SIGN_IN_ATTEMPTS_PER_ADDRESS` (per minute, default 30).
 */
import { readFile } from "node:fs/promises";
import { ConfigurationError, type InstallationConfig } from "../config/installation-config.js";
import type { Queryable } from "../store/db.js";
import { installationSessionKey } from "../iam/session-signing-key.js";
import { isPrincipalId } from "../domain/iam/ids.js";
import { getPrincipal } from "../iam/principals.js";
import { DEFAULT_SIGN_IN_LIMITS, type AuthRuntime } from "../services/signin/runtime.js";
import { DEFAULT_SESSION_LIFETIMES } from "../services/signin/sessions.js";
import { errnoCodeOf } from "../domain/input/unknowns.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** The shortest session key accepted. */
export const MIN_SESSION_KEY_BYTES = 32;

function positiveInteger(env: Environment, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigurationError(name, [
      {
        key: name,
        message: `${name}: must be a positive whole number, not ${JSON.stringify(raw)}`,
      },
    ]);
  }
  return value;
}

/** Reads the session key file; refuses a missing, unreadable or short one by its key. */
export async function readSessionKey(path: string): Promise<Buffer> {
  let key: Buffer;
  try {
    key = Buffer.from((await readFile(path, "utf8")).trim(), "utf8");
  } catch (err) {
    throw new ConfigurationError(path, [
      {
        key: "auth.sessionKeyFile",
        message: `auth.sessionKeyFile: cannot read ${path}: ${errnoCodeOf(err) ?? "error"}`,
      },
    ]);
  }
  if (key.length < MIN_SESSION_KEY_BYTES) {
    throw new ConfigurationError(path, [
      {
        key: "auth.sessionKeyFile",
        message: `auth.sessionKeyFile: ${path} holds ${key.length} bytes; at least ${MIN_SESSION_KEY_BYTES} are needed (e.g. openssl rand -base64 48)`,
      },
    ]);
  }
  return key;
}

/** The runtime, and whether the session key came from the database (no key file configured). */
export async function loadAuthRuntime(
  config: InstallationConfig,
  env: Environment,
  db: Queryable,
): Promise<{ readonly runtime: AuthRuntime; readonly keyFromDatabase: boolean }> {
  const file = config.auth.sessionKeyFile;
  const sessionKey = file === null ? await installationSessionKey(db) : await readSessionKey(file);
  const idleSeconds = positiveInteger(
    env,
    "OCC_SESSION_IDLE_SECONDS",
    DEFAULT_SESSION_LIFETIMES.idleSeconds,
  );
  const absoluteSeconds = positiveInteger(
    env,
    "OCC_SESSION_ABSOLUTE_SECONDS",
    DEFAULT_SESSION_LIFETIMES.absoluteSeconds,
  );
  const limits = DEFAULT_SIGN_IN_LIMITS;
  return {
    keyFromDatabase: file === null,
    runtime: {
      settings: config.auth,
      sessionKey,
      lifetimes: { idleSeconds, absoluteSeconds },
      limits: {
        perAccount: {
          ...limits.perAccount,
          max: positiveInteger(env, "OCC_SIGN_IN_ATTEMPTS_PER_ACCOUNT", limits.perAccount.max),
        },
        perAddress: {
          ...limits.perAddress,
          max: positiveInteger(env, "OCC_SIGN_IN_ATTEMPTS_PER_ADDRESS", limits.perAddress.max),
        },
      },
    },
  };
}

/**
 * Warns (never refuses: bootstrap may run after the API starts) when `auth.recoveryUserId`
 * names no live user, since the break-glass sign-in would then be impossible.
 */
export async function checkRecoveryAccount(
  db: Queryable,
  config: InstallationConfig,
  warn: (message: string) => void,
): Promise<void> {
  const id = config.auth.recoveryUserId;
  if (id === null) return;
  // The schema holds the ID to the principal pattern; a value that is not one names no principal.
  const kind = isPrincipalId(id) ? (await getPrincipal(db, id))?.kind : undefined;
  if (kind !== "user") {
    warn(
      `auth.recoveryUserId ${id} ${kind === undefined ? "names no live principal" : "is not a user"}: the recovery account cannot sign in; set it to the administrator bootstrap created`,
    );
  }
}
