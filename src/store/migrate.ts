import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineRow, text } from "./columns.js";
import type { Db } from "./db.js";

export const DEFAULT_MIGRATIONS_DIR = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../migrations",
);

const LOCK = "SELECT pg_advisory_xact_lock(hashtext('occ_schema_migrations'))";
const checksumRow = defineRow("occ_schema_migrations (checksum)", { checksum: text });
const FILE_PATTERN = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface Migration {
  readonly version: string;
  readonly file: string;
  readonly sql: string;
  readonly checksum: string;
}

export interface MigrateResult {
  readonly applied: readonly string[];
  readonly alreadyApplied: readonly string[];
}

/** Reads `NNNN_name.sql` files in version order; any other file name is an error, not ignored. */
export async function loadMigrations(dir = DEFAULT_MIGRATIONS_DIR): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith(".sql")).sort();
  const out: Migration[] = [];
  for (const file of names) {
    const m = FILE_PATTERN.exec(file);
    if (m?.[1] === undefined) {
      throw new Error(`migrations: ${file} does not match NNNN_lowercase_name.sql; rename it`);
    }
    const sql = await readFile(join(dir, file), "utf8");
    const checksum = createHash("sha256").update(sql).digest("hex");
    if (out.some((o) => o.version === m[1])) {
      throw new Error(`migrations: two files share version ${m[1]} (${file}); renumber one`);
    }
    out.push({ version: m[1], file, sql, checksum });
  }
  return out;
}

/**
 * Applies pending migrations, each in its own transaction under an advisory lock so that
 * concurrent runners (two processes starting at once) apply each file exactly once. A file
 * whose content changed after it was applied stops the run: migrations are append-only.
 */
export async function migrate(db: Db, dir = DEFAULT_MIGRATIONS_DIR): Promise<MigrateResult> {
  const migrations = await loadMigrations(dir);
  await db.transaction(async (tx) => {
    await tx.query(LOCK);
    await tx.exec(`CREATE TABLE IF NOT EXISTS occ_schema_migrations (
      version text PRIMARY KEY,
      file text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });
  const applied: string[] = [];
  const alreadyApplied: string[] = [];
  for (const m of migrations) {
    const didApply = await db.transaction(async (tx) => {
      await tx.query(LOCK);
      const found = await tx.query(
        "SELECT checksum FROM occ_schema_migrations WHERE version = $1",
        [m.version],
      );
      const existing = checksumRow.decodeFirst(found.rows);
      if (existing !== undefined) {
        if (existing.checksum !== m.checksum) {
          throw new Error(
            `migrations: ${m.file} changed after it was applied (checksum differs); ` +
              "restore it and add a new migration instead",
          );
        }
        return false;
      }
      await tx.exec(m.sql);
      await tx.query(
        "INSERT INTO occ_schema_migrations (version, file, checksum) VALUES ($1, $2, $3)",
        [m.version, m.file, m.checksum],
      );
      return true;
    });
    (didApply ? applied : alreadyApplied).push(m.file);
  }
  return { applied, alreadyApplied };
}
