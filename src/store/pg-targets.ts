/**
 * Multi-host PostgreSQL URLs (`postgres://user@h1:5432,h2:5432/db?target_session_attrs=read-write`),
 * as libpq reads them. node-postgres (`pg` 8) connects to one host only, so the adapter splits
 * such a URL into one single-host URL per host and picks among them itself (`pg-db.ts`): each new
 * connection tries the hosts in turn and keeps the first whose session matches
 * `target_session_attrs` — for `read-write`, a server that is not in recovery and whose
 * `transaction_read_only` is `off` (what libpq checks). Nothing here ever puts the URL (it may
 * hold a password) into an error: errors name the hosts and the query parameter only.
 */
import { rowObject } from "./columns.js";
import { isDatabaseError } from "./sql-errors.js";

/** The `target_session_attrs` values OCC accepts: it writes, so a standby is never a target. */
export const SESSION_ATTRS = ["any", "read-write", "primary"] as const;
export type SessionAttrs = (typeof SESSION_ATTRS)[number];

/** One host of a (possibly multi-host) URL, as a single-host URL `pg` can use. */
export interface PgTarget {
  /** `host:port` (never the credentials), for messages. */
  readonly label: string;
  readonly connectionString: string;
}

export interface PgTargets {
  readonly targets: readonly PgTarget[];
  readonly sessionAttrs: SessionAttrs;
}

const URL_FORM = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/;

function isSessionAttrs(value: string): value is SessionAttrs {
  return SESSION_ATTRS.some((a) => a === value);
}

/** Removes `target_session_attrs` from the query part (pg would pass it on), keeping the rest. */
function splitSessionAttrs(rest: string): { rest: string; attrs: string | undefined } {
  const q = rest.indexOf("?");
  if (q < 0) return { rest, attrs: undefined };
  const params = rest.slice(q + 1).split("&");
  const attr = params.find((p) => p.startsWith("target_session_attrs="));
  const others = params.filter((p) => !p.startsWith("target_session_attrs="));
  return {
    rest: rest.slice(0, q) + (others.length === 0 ? "" : `?${others.join("&")}`),
    attrs: attr === undefined ? undefined : decodeURIComponent(attr.split("=")[1] ?? ""),
  };
}

/** `host`, `host:port` or `[v6]:port` → its label and the authority of a single-host URL. */
function hostPort(entry: string): string {
  const trimmed = entry.trim();
  if (trimmed === "") {
    throw new Error(
      "database URL: an empty host in its comma-separated host list; write postgres://user@host1:5432,host2:5432/db",
    );
  }
  const v6 = /^\[[^\]]+\](:\d+)?$/.test(trimmed);
  const hasPort = v6 ? /\]:\d+$/.test(trimmed) : trimmed.includes(":");
  return hasPort ? trimmed : `${trimmed}:5432`;
}

/**
 * Splits a PostgreSQL URL into its hosts. A single-host URL is kept as it is (only
 * `target_session_attrs` is removed), so every form `pg` reads keeps working; a key=value
 * connection string or a socket path has one target. An unsupported `target_session_attrs`
 * throws, naming the parameter and the values accepted.
 */
export function parsePgTargets(connectionString: string): PgTargets {
  const m = URL_FORM.exec(connectionString);
  if (m === null)
    return { targets: [{ label: "database", connectionString }], sessionAttrs: "any" };
  const [, scheme = "", authority = "", tail = ""] = m;
  const { rest, attrs } = splitSessionAttrs(tail);
  const sessionAttrs = attrs ?? "any";
  if (!isSessionAttrs(sessionAttrs)) {
    throw new Error(
      `database URL: target_session_attrs=${sessionAttrs} is not supported; OCC writes, so use ` +
        `${SESSION_ATTRS.join(", ")} (read-write is what a multi-host URL for failover needs)`,
    );
  }
  const at = authority.lastIndexOf("@");
  const userinfo = at < 0 ? "" : authority.slice(0, at + 1);
  const hosts = authority.slice(at + 1);
  if (!hosts.includes(",")) {
    const label = hosts === "" ? "database" : hosts;
    return { targets: [{ label, connectionString: scheme + authority + rest }], sessionAttrs };
  }
  const targets = hosts.split(",").map((entry) => {
    const label = hostPort(entry);
    return { label, connectionString: `${scheme}${userinfo}${label}${rest}` };
  });
  return { targets, sessionAttrs };
}

/**
 * True for an error after which a session should not be reused: the server is read-only now (a
 * primary demoted under it, SQLSTATE 25006), is shutting down (class 57) or lost the
 * connection (class 08). Errors wrapped by callers (the database guard's) are looked through.
 */
export function sessionUnusable(err: unknown): boolean {
  for (let e = err, depth = 0; e !== undefined && depth < 5; depth++) {
    if (isDatabaseError(e)) {
      return e.code === "25006" || e.code.startsWith("57") || e.code.startsWith("08");
    }
    e = e instanceof Error ? e.cause : undefined;
  }
  return false;
}

/** The statement that tells a session's kind, and whether its answer matches `attrs`. */
export const SESSION_CHECK_SQL =
  "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only";

export function sessionMatches(attrs: SessionAttrs, row: unknown): boolean {
  if (attrs === "any") return true;
  if (row === undefined) return false;
  const { recovery, read_only: readOnly } = rowObject(row, "session check");
  if (recovery !== false) return false;
  return attrs === "primary" || readOnly === "off";
}

/** Raised when no host gave a matching session; no SQLSTATE, so callers see "unavailable". */
export class NoTargetError extends Error {
  override readonly name = "NoTargetError";
  constructor(attrs: SessionAttrs, failures: readonly string[], cause: unknown) {
    super(
      `no PostgreSQL host accepted a ${attrs} session: ${failures.join("; ")} ` +
        "(during a failover this lasts until the standby is promoted)",
      { cause },
    );
  }
}
