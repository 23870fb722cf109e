/**
 * Announcing a change of policy (control-plane.md §3) to every API process's policy cache.
 *
 * Every write that can take access away — a revoked key, a deleted principal, a removed
 * binding, a deleted role, a new restriction, a tombstoned Namespace (whose bindings go with
 * it) — calls {@link announcePolicyChange} in its own transaction. The `NOTIFY` is delivered to
 * every listener only after that transaction commits, so no process can refill its cache from
 * the old rows after hearing of the change. In this process the change is also told to the
 * live caches at once (before the commit), so that none of them stores what it reads until its
 * own notification has come back: a request answered after the revoking response is refused.
 */
import { randomUUID } from "node:crypto";
import type { Queryable } from "./db.js";

/** The `LISTEN` channel of policy changes; the payload is a token naming one change. */
export const POLICY_CHANNEL = "occ_policy";

/** What a cache in this process must hear of a change announced here. */
export interface LocalPolicyListener {
  /** A change named `token` is about to commit (or roll back): flush, store nothing until heard. */
  changing(token: string): void;
}

const local = new Set<LocalPolicyListener>();

/** Registers a cache of this process; the returned function unregisters it. */
export function onLocalPolicyChange(listener: LocalPolicyListener): () => void {
  local.add(listener);
  return () => {
    local.delete(listener);
  };
}

/** Announces, in the caller's transaction `q`, that policy is changing (see module comment). */
export async function announcePolicyChange(q: Queryable): Promise<void> {
  const token = randomUUID();
  for (const listener of local) listener.changing(token);
  await q.query("SELECT pg_notify($1, $2)", [POLICY_CHANNEL, token]);
}
