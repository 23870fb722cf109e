/**
 * The Installation's session signing key kept in the database (migration 0014), for an API
 * started without `auth.sessionKeyFile`. The first process to start stores a random key; every
 * process — that one included — then reads the one stored row, so all replicas sign and verify
 * session cookies with the same key. The key is never logged or returned by any route.
 */
import { randomBytes } from "node:crypto";
import { defineRow, text } from "../store/columns.js";
import type { Queryable } from "../store/db.js";

const keyRow = defineRow("session_signing_key", { key: text });

/** Bytes of a generated key (stored base64url: 43 characters). */
const GENERATED_KEY_BYTES = 32;

/** The stored key, created on first use; equal for every process sharing the database. */
export async function installationSessionKey(db: Queryable): Promise<Buffer> {
  await db.query(
    "INSERT INTO session_signing_key (key) VALUES ($1) ON CONFLICT (singleton) DO NOTHING",
    [randomBytes(GENERATED_KEY_BYTES).toString("base64url")],
  );
  const res = await db.query("SELECT key FROM session_signing_key");
  const row = keyRow.decodeFirst(res.rows);
  if (row === undefined) throw new Error("session_signing_key holds no key after its insert");
  return Buffer.from(row.key, "utf8");
}
