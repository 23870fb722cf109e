/**
 * API keys (control-plane.md §3, quality.md §4): ≥ 32 random bytes, stored only as a hash and
 * found by a non-secret prefix, refused when wrong, revoked, expired or orphaned — and never
 * present in clear in any table.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  API_KEY_SECRET_BYTES,
  apiKeyMatches,
  apiKeyPrefix,
  bearerToken,
  generateApiKey,
  hashApiKey,
} from "../../../src/iam/api-key-secret.js";
import {
  authenticateApiKey,
  issueApiKey,
  listApiKeys,
  revokeApiKey,
} from "../../../src/iam/api-keys.js";
import { deletePrincipal } from "../../../src/iam/principals.js";
import type { Db } from "../../../src/store/db.js";
import { principal } from "./db.js";
import { openMigratedPglite } from "../../harness/pglite.js";

describe("the key format", () => {
  it("carries ≥ 32 random bytes after a 16-hex-digit prefix, and never repeats", () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    for (const k of keys) {
      expect(k.key).toMatch(/^occ_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      const secret = k.key.slice("occ_0123456789abcdef_".length);
      expect(Buffer.from(secret, "base64url")).toHaveLength(API_KEY_SECRET_BYTES);
      expect(k.prefix).toBe(k.key.slice(0, 20));
      expect(k.sha256).toBe(hashApiKey(k.key));
      expect(k.sha256).not.toContain(secret);
    }
    expect(new Set(keys.map((k) => k.key)).size).toBe(keys.length);
    expect(new Set(keys.map((k) => k.prefix)).size).toBe(keys.length);
  });

  it("compares by hash: one changed character is a mismatch", () => {
    const k = generateApiKey();
    expect(apiKeyMatches(k.key, k.sha256)).toBe(true);
    const last = k.key.endsWith("A") ? "B" : "A";
    expect(apiKeyMatches(k.key.slice(0, -1) + last, k.sha256)).toBe(false);
    expect(apiKeyMatches(k.key, "00")).toBe(false);
  });

  it.each([
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["Bearer   abc  ", "abc"],
    ["Bearer", undefined],
    ["Bearer a b", undefined],
    ["Basic abc", undefined],
    ["", undefined],
  ])("reads %j as %j", (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  it("finds no prefix in a string that is not a key", () => {
    expect(apiKeyPrefix("occ_short_x")).toBeUndefined();
    expect(apiKeyPrefix(generateApiKey().key)).toMatch(/^occ_[0-9a-f]{16}$/);
  });
});

describe("stored keys", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openMigratedPglite();
  });
  afterAll(() => db.close());

  it("stores only the prefix and hash; the key appears in no table", async () => {
    const who = await principal(db, "holder");
    const issued = await issueApiKey(db, { principalId: who, description: "ci" });
    const dump = await db.query<{ t: string }>(
      `SELECT string_agg(t, ' ') AS t FROM (
         SELECT row_to_json(k)::text AS t FROM api_keys k
         UNION ALL SELECT row_to_json(p)::text FROM principals p
         UNION ALL SELECT row_to_json(e)::text FROM audit_events e) AS everything`,
    );
    const text = dump.rows[0]?.t ?? "";
    expect(text).toContain(issued.record.prefix);
    expect(text).toContain(hashApiKey(issued.key));
    expect(text).not.toContain(issued.key);
    expect(text).not.toContain(issued.key.slice(21));
    expect(JSON.stringify(issued.record)).not.toContain(issued.key.slice(21));
    const listed = await listApiKeys(db, who, { limit: 10 });
    expect(JSON.stringify(listed)).not.toContain(hashApiKey(issued.key));
  });

  it("authenticates the right key and refuses every wrong one with its reason", async () => {
    const who = await principal(db, "auth");
    const good = await issueApiKey(db, { principalId: who });
    expect(await authenticateApiKey(db, good.key)).toMatchObject({
      outcome: "authenticated",
      principal: { id: who, name: "auth", kind: "user", keyId: good.record.id },
    });
    const flipped = good.key.slice(0, -1) + (good.key.endsWith("A") ? "B" : "A");
    expect(await authenticateApiKey(db, flipped)).toEqual({
      outcome: "rejected",
      reason: "mismatch",
    });
    expect(await authenticateApiKey(db, generateApiKey().key)).toEqual({
      outcome: "rejected",
      reason: "unknown",
    });
    expect(await authenticateApiKey(db, "garbage")).toEqual({
      outcome: "rejected",
      reason: "malformed",
    });
  });

  it("records when a key was last used", async () => {
    const who = await principal(db, "user-of-key");
    const k = await issueApiKey(db, { principalId: who });
    expect(k.record.lastUsedAt).toBeNull();
    await authenticateApiKey(db, k.key);
    const row = await db.query<{ used: boolean }>(
      "SELECT last_used_at IS NOT NULL AS used FROM api_keys WHERE id = $1",
      [k.record.id],
    );
    expect(row.rows).toEqual([{ used: true }]);
  });

  it("refuses revoked and expired keys, and keys of deleted principals", async () => {
    const who = await principal(db, "revocable");
    const revoked = await issueApiKey(db, { principalId: who });
    expect(await revokeApiKey(db, revoked.record.id)).toMatchObject({ outcome: "revoked" });
    expect(await revokeApiKey(db, revoked.record.id)).toMatchObject({ outcome: "already_revoked" });
    expect(await authenticateApiKey(db, revoked.key)).toEqual({
      outcome: "rejected",
      reason: "revoked",
    });

    const expiring = await issueApiKey(db, {
      principalId: who,
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect((await authenticateApiKey(db, expiring.key)).outcome).toBe("authenticated");
    await db.query(
      `UPDATE api_keys SET created_at = now() - interval '2 hours', expires_at = now() - interval '1 second'
       WHERE id = $1`,
      [expiring.record.id],
    );
    expect(await authenticateApiKey(db, expiring.key)).toEqual({
      outcome: "rejected",
      reason: "expired",
    });

    const doomed = await principal(db, "doomed");
    const orphan = await issueApiKey(db, { principalId: doomed });
    await deletePrincipal(db, doomed);
    // Deleting a principal revokes its keys; either way the key no longer works.
    expect((await authenticateApiKey(db, orphan.key)).outcome).toBe("rejected");
    await db.query("UPDATE api_keys SET revoked_at = NULL WHERE id = $1", [orphan.record.id]);
    expect(await authenticateApiKey(db, orphan.key)).toEqual({
      outcome: "rejected",
      reason: "principal_deleted",
    });
  });
});
