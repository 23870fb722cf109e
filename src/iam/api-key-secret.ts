/**
 * The API key format and its hash (control-plane.md §3). Pure apart from the random source.
 *
 * A key is `occ_<prefix>_<secret>`: the prefix is 8 random bytes as 16 lowercase hex digits,
 * not secret, and finds the stored row; the secret is 32 random bytes as base64url. Only
 * SHA-256 of the whole key is stored. With 256 bits of entropy a fast unsalted hash cannot be
 * brute-forced, and a fast hash keeps authentication cheap on every request. The stored and
 * presented hashes are compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Bytes of randomness in the secret part (the spec asks for at least 32). */
export const API_KEY_SECRET_BYTES = 32;

const KEY_PATTERN = /^(occ_[0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** A freshly generated key: the full value (shown once), its lookup prefix and its hash. */
export interface GeneratedApiKey {
  /** The key itself. Never stored, logged or audited; returned to its owner exactly once. */
  readonly key: string;
  /** `occ_` + 16 hex digits: stored and shown, identifies the key without revealing it. */
  readonly prefix: string;
  /** Lowercase hex SHA-256 of `key`. */
  readonly sha256: string;
}

/** Generates a new key from `random` (default: the system CSPRNG). */
export function generateApiKey(random: (n: number) => Buffer = randomBytes): GeneratedApiKey {
  const prefix = `occ_${random(8).toString("hex")}`;
  const secret = random(API_KEY_SECRET_BYTES).toString("base64url");
  const key = `${prefix}_${secret}`;
  if (!KEY_PATTERN.test(key)) throw new Error("generateApiKey: random source gave a bad length");
  return { key, prefix, sha256: hashApiKey(key) };
}

/** Lowercase hex SHA-256 of a key. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/**
 * The lookup prefix of a presented key, or `undefined` when it does not have the key format
 * (then no lookup is made at all).
 */
export function apiKeyPrefix(presented: string): string | undefined {
  return KEY_PATTERN.exec(presented)?.[1];
}

/**
 * True when `presented` hashes to `storedSha256`. The comparison takes the same time wherever
 * the two differ, so response timing does not reveal how much of a guess was right.
 */
export function apiKeyMatches(presented: string, storedSha256: string): boolean {
  const a = Buffer.from(hashApiKey(presented), "hex");
  const b = Buffer.from(storedSha256, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The key from an `Authorization` header value: `Bearer <key>` (scheme case-insensitive, one
 * or more spaces). `undefined` for anything else, including a missing header.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer +(\S+) *$/i.exec(header);
  return m?.[1];
}
