/**
 * The policy cache in one process, on PGlite (the embedded default): what it serves without
 * the database, what an announced change drops at once, and the TTL backstop for a change
 * nobody announced. The two-process revocation over a real PostgreSQL is in
 * test/integration/e2e/policy-cache.e2e.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueApiKey, revokeApiKey } from "../../../src/iam/api-keys.js";
import { deleteBinding, listBindings } from "../../../src/iam/bindings.js";
import { startPolicyCache, type PolicyCache } from "../../../src/iam/policy-cache.js";
import type { Db } from "../../../src/store/db.js";
import { bind, principal, role } from "./db.js";
import { openMigratedPglite } from "../../harness/pglite.js";

const CREATE = { permission: { action: "create", kind: "namespace" } } as const;
let db: Db;
let clock = 0;
let cache: PolicyCache;

beforeAll(async () => {
  db = await openMigratedPglite();
  cache = await startPolicyCache(db, { ttlMs: 1_000, now: () => clock });
});

afterAll(async () => {
  await cache.close();
  await db.close();
});

describe("policy cache", () => {
  it("listens on PGlite and serves a key and a grant it has read once", async () => {
    expect(cache.listening).toBe(true);
    const who = await principal(db, "cached");
    await bind(db, who, await role(db, "cached-creator", [CREATE.permission]));
    const { key, record } = await issueApiKey(db, { principalId: who });
    expect(await cache.authenticate(key)).toMatchObject({ outcome: "authenticated" });
    expect(await cache.authorize(db, who, CREATE)).toMatchObject({ allowed: true });
    // Changed behind the cache's back (no announcement): still served until the TTL ends.
    await db.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1", [record.id]);
    await db.query("DELETE FROM bindings WHERE principal_id = $1", [who]);
    clock += 999;
    expect(await cache.authenticate(key)).toMatchObject({ outcome: "authenticated" });
    expect(await cache.authorize(db, who, CREATE)).toMatchObject({ allowed: true });
    // A transaction (a re-authorization under a lock) always reads current policy.
    expect(await db.transaction((tx) => cache.authorize(tx, who, CREATE))).toEqual({
      allowed: false,
      reason: "no_grant",
    });
    clock += 1;
    expect(await cache.authenticate(key)).toEqual({ outcome: "rejected", reason: "revoked" });
    expect(await cache.authorize(db, who, CREATE)).toEqual({ allowed: false, reason: "no_grant" });
  });

  it("an announced revocation or unbinding is refused on the very next request", async () => {
    const who = await principal(db, "announced");
    await bind(db, who, await role(db, "announced-creator", [CREATE.permission]));
    const { key, record } = await issueApiKey(db, { principalId: who });
    expect(await cache.authenticate(key)).toMatchObject({ outcome: "authenticated" });
    expect(await cache.authorize(db, who, CREATE)).toMatchObject({ allowed: true });
    await db.transaction((tx) => revokeApiKey(tx, record.id));
    expect(await cache.authenticate(key)).toEqual({ outcome: "rejected", reason: "revoked" });
    const [binding] = (await listBindings(db, { principalId: who }, { limit: 10 })).items;
    if (binding === undefined) throw new Error("the binding was not created");
    await deleteBinding(db, binding.id);
    expect(await cache.authorize(db, who, CREATE)).toEqual({ allowed: false, reason: "no_grant" });
  });

  it("never keeps a refusal: a new binding counts at once", async () => {
    const who = await principal(db, "late");
    expect(await cache.authorize(db, who, CREATE)).toEqual({ allowed: false, reason: "no_grant" });
    await bind(db, who, await role(db, "late-creator", [CREATE.permission]));
    expect(await cache.authorize(db, who, CREATE)).toMatchObject({ allowed: true });
  });

  it("keeps a key no longer than its own expiry", async () => {
    const who = await principal(db, "expiring");
    const { key, record } = await issueApiKey(db, {
      principalId: who,
      expiresAt: new Date(Date.now() + 60_000),
    });
    const expiresAt = record.expiresAt?.getTime() ?? 0;
    clock = expiresAt - 1_000;
    expect(await cache.authenticate(key)).toMatchObject({ outcome: "authenticated" });
    await db.query(
      `UPDATE api_keys SET created_at = now() - interval '2 hours',
         expires_at = now() - interval '1 second' WHERE principal_id = $1`,
      [who],
    );
    expect(await cache.authenticate(key)).toMatchObject({ outcome: "authenticated" });
    clock = expiresAt;
    expect(await cache.authenticate(key)).toEqual({ outcome: "rejected", reason: "expired" });
  });
});
