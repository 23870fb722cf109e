/**
 * The API process's policy cache (control-plane.md §3): authenticated API keys (by the
 * SHA-256 of the presented key) and allowed decisions, so that a request usually costs no
 * database round trip before its own work.
 *
 * Only what grants access is kept — a rejected key or a denial always goes to the database,
 * so a new binding takes effect on the very next request. What takes access away is announced
 * by its writer (`announcePolicyChange`, committed with the change); on that `NOTIFY` the whole
 * cache is dropped, so a revoked key, a deleted principal or a removed binding stops working
 * on every API process as soon as the notification arrives. Fail closed:
 * - every entry lives at most `ttlMs` (and a key no longer than its own expiry);
 * - while the `LISTEN` connection is down nothing is served from or stored in the cache; it is
 *   flushed when the connection is lost and again once it is back;
 * - an entry read while a change was in flight (a generation moved, or a change announced in
 *   this process has not come back yet) is used for that request only, never stored.
 */
import type { Db, Queryable, Subscription } from "../store/db.js";
import { POLICY_CHANNEL, onLocalPolicyChange } from "../store/policy-changes.js";
import { hashApiKey } from "./api-key-secret.js";
import { authenticateApiKey, type AuthenticationResult } from "./api-keys.js";
import { authorize, type AuthorizationRequest, type Decision } from "./authorizer.js";
import type { PrincipalId } from "../domain/iam/ids.js";
import { authenticateSession, hashSessionToken, type AuthenticatedSession } from "./sessions.js";

/** Default lifetime of an entry: the backstop if a notification is ever lost. */
export const DEFAULT_POLICY_TTL_MS = 5_000;
/** A change announced here that has not come back within this long is taken as rolled back. */
const PENDING_MS = 5_000;
/** At most this many entries of each kind; beyond it the kind is dropped and refilled. */
const MAX_ENTRIES = 10_000;
/** `last_used_at` is refreshed at most this often per key (as {@link authenticateApiKey}). */
const TOUCH_MS = 60_000;

type Authenticated = Extract<AuthenticationResult, { outcome: "authenticated" }>;

interface Entry<T> {
  readonly value: T;
  readonly until: number;
}

/**
 * The cache as requests use it. `authorize` with a transaction (or any `q` not the cached
 * database or one {@link PolicyCache.accept}ed as it) reads policy from `q`, uncached: a
 * re-authorization under a row lock sees current policy.
 */
export interface PolicyCache {
  /** Takes `q` (e.g. a guarded wrapper of the cached database) as that database. */
  accept(q: Queryable): void;
  authenticate(presented: string): Promise<AuthenticationResult>;
  /** The live session `token` names (iam/sessions.ts), cached like a key. */
  authenticateSession(token: string): Promise<AuthenticatedSession | undefined>;
  authorize(
    q: Queryable,
    principalId: PrincipalId,
    request: AuthorizationRequest,
  ): Promise<Decision>;
  /** True while the `LISTEN` is live (the cache is in use). */
  readonly listening: boolean;
  close(): Promise<void>;
}

export interface PolicyCacheOptions {
  readonly ttlMs?: number;
  /** Reported when the `LISTEN` connection is lost or cannot be re-established. */
  readonly onListenError?: (err: Error) => void;
  /** Time source in milliseconds; default `Date.now`. */
  readonly now?: () => number;
}

/** Starts a cache over `db` (resolves once its `LISTEN` is active). */
export async function startPolicyCache(
  db: Db,
  opts: PolicyCacheOptions = {},
): Promise<PolicyCache> {
  const ttlMs = opts.ttlMs ?? DEFAULT_POLICY_TTL_MS;
  const now = opts.now ?? Date.now;
  const keys = new Map<string, Entry<Authenticated>>();
  const grants = new Map<string, Entry<Decision>>();
  const sessions = new Map<string, Entry<AuthenticatedSession>>();
  const touched = new Map<string, number>();
  const pending = new Map<string, number>();
  let generation = 0;
  let subscription: Subscription | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let backoffMs = 100;
  const databases = new Set<Queryable>([db]);

  const flush = (): void => {
    generation += 1;
    keys.clear();
    grants.clear();
    sessions.clear();
  };
  const storable = (since: number): boolean => {
    if (subscription === undefined || generation !== since) return false;
    const t = now();
    for (const [token, until] of pending) if (until <= t) pending.delete(token);
    return pending.size === 0;
  };
  const fresh = <T>(map: Map<string, Entry<T>>, key: string): T | undefined => {
    if (subscription === undefined) return undefined;
    const entry = map.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > now()) return entry.value;
    map.delete(key);
    return undefined;
  };
  const store = <T>(map: Map<string, Entry<T>>, key: string, value: T, until: number): void => {
    if (map.size >= MAX_ENTRIES) map.clear();
    map.set(key, { value, until });
  };

  const subscribe = async (): Promise<void> => {
    const sub = await db.listen(POLICY_CHANNEL, {
      onNotify: (token) => {
        pending.delete(token);
        flush();
      },
      onError: (err) => {
        subscription = undefined;
        flush();
        opts.onListenError?.(err);
        resubscribeLater();
      },
    });
    if (closed) {
      await sub.close();
      return;
    }
    subscription = sub;
    backoffMs = 100;
    flush(); // anything could have changed while no notification could arrive
  };
  const resubscribeLater = (): void => {
    if (closed) return;
    retry = setTimeout(() => {
      retry = undefined;
      subscribe().catch((err: unknown) => {
        opts.onListenError?.(err instanceof Error ? err : new Error(String(err)));
        backoffMs = Math.min(backoffMs * 2, 5_000);
        resubscribeLater();
      });
    }, backoffMs);
    retry.unref();
  };
  const unregister = onLocalPolicyChange({
    changing: (token) => {
      pending.set(token, now() + PENDING_MS);
      flush();
    },
  });
  await subscribe();

  return {
    get listening() {
      return subscription !== undefined;
    },
    async authenticate(presented) {
      const hash = hashApiKey(presented);
      const hit = fresh(keys, hash);
      if (hit !== undefined) {
        touch(db, hit, touched, now());
        return hit;
      }
      const since = generation;
      const result = await authenticateApiKey(db, presented);
      if (result.outcome === "authenticated") {
        touched.set(result.principal.keyId, now());
        const expires = result.expiresAt?.getTime() ?? Infinity;
        if (storable(since)) store(keys, hash, result, Math.min(now() + ttlMs, expires));
      }
      return result;
    },
    async authenticateSession(token) {
      const hash = hashSessionToken(token);
      const hit = fresh(sessions, hash);
      if (hit !== undefined) return hit;
      const since = generation;
      const session = await authenticateSession(db, token);
      // Kept at most a quarter of the idle timeout, so `last_seen_at` is refreshed in time.
      if (session !== undefined && storable(since)) {
        const quarter = (session.until.getTime() - Date.now()) / 4;
        store(sessions, hash, session, now() + Math.max(0, Math.min(ttlMs, quarter)));
      }
      return session;
    },
    accept(q) {
      databases.add(q);
    },
    async authorize(q, principalId, request) {
      if (!databases.has(q)) return authorize(q, principalId, request);
      const key = `${principalId} ${request.permission.kind}:${request.permission.action} ${request.namespaceId ?? ""}`;
      const hit = fresh(grants, key);
      if (hit !== undefined) return hit;
      const since = generation;
      const decision = await authorize(db, principalId, request);
      if (decision.allowed && storable(since)) store(grants, key, decision, now() + ttlMs);
      return decision;
    },
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      unregister();
      flush();
      const sub = subscription;
      subscription = undefined;
      await sub?.close();
    },
  };
}

/** Refreshes `last_used_at` of a key served from the cache at most once a minute, best effort. */
function touch(db: Db, hit: Authenticated, touched: Map<string, number>, t: number): void {
  const keyId = hit.principal.keyId;
  if (t - (touched.get(keyId) ?? 0) < TOUCH_MS) return;
  touched.set(keyId, t);
  db.query(
    `UPDATE api_keys SET last_used_at = now()
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [keyId],
  ).catch(() => undefined);
}
