/**
 * Whether the database carries every migration this release ships (`occ api` and `occ worker`
 * at startup, and `/readyz` while they run). "This release needs M" is the highest version of
 * the `migrations/NNNN_*.sql` files shipped with it — read from the files, never a constant,
 * so adding a migration is all it takes. A database that is *ahead* (a newer release migrated
 * it during a rolling upgrade) is accepted: migrations only add.
 */
import { loadMigrations, DEFAULT_MIGRATIONS_DIR } from "./migrate.js";
import { defineRow, nullable, text } from "./columns.js";
import type { Queryable } from "./db.js";

/** What this release's migrations require: every shipped version, highest last. */
export interface RequiredSchema {
  readonly versions: readonly string[];
  /** The highest shipped version as a number (0 with no migrations). */
  readonly required: number;
}

/** The database's side: the highest applied version and the shipped ones it lacks. */
export interface SchemaStatus {
  readonly current: number;
  readonly required: number;
  readonly missing: readonly string[];
}

/** The stable code of a database that lacks a migration of this release. */
export const SCHEMA_OUTDATED = "DATABASE_SCHEMA_OUTDATED" as const;

/** Raised by {@link requireSchema}; the message names both versions and the fix. */
export class SchemaOutdatedError extends Error {
  override readonly name = "SchemaOutdatedError";
  readonly code = SCHEMA_OUTDATED;
  constructor(readonly status: SchemaStatus) {
    super(schemaOutdatedMessage(status));
  }
}

/** "database schema is at version N, this release needs M: run `occ migrate`". */
export function schemaOutdatedMessage(status: SchemaStatus): string {
  const gaps =
    status.current >= status.required
      ? ` (migration ${status.missing.join(", ")} was never applied)`
      : "";
  return `database schema is at version ${status.current}, this release needs ${status.required}${gaps}: run \`occ migrate\``;
}

/** The versions of the migrations shipped in `dir` (the release's `migrations/`). */
export async function requiredSchema(dir = DEFAULT_MIGRATIONS_DIR): Promise<RequiredSchema> {
  const versions = (await loadMigrations(dir)).map((m) => m.version);
  const last = versions.at(-1);
  return { versions, required: last === undefined ? 0 : Number(last) };
}

const tableRow = defineRow("occ_schema_migrations (exists)", { name: nullable(text) });
const versionRow = defineRow("occ_schema_migrations", { version: text });

/** Reads the applied versions; a database never migrated has none. */
export async function readSchemaStatus(
  q: Queryable,
  required: RequiredSchema,
): Promise<SchemaStatus> {
  const table = await q.query("SELECT to_regclass('occ_schema_migrations')::text AS name");
  const applied = new Set<string>();
  if (tableRow.decodeFirst(table.rows)?.name != null) {
    const rows = await q.query("SELECT version FROM occ_schema_migrations");
    for (const r of versionRow.decodeAll(rows.rows)) applied.add(r.version);
  }
  const numbers = [...applied].map(Number).filter((n) => Number.isInteger(n));
  return {
    current: numbers.length === 0 ? 0 : Math.max(...numbers),
    required: required.required,
    missing: required.versions.filter((v) => !applied.has(v)),
  };
}

/** Throws {@link SchemaOutdatedError} unless every shipped migration is applied. */
export async function requireSchema(q: Queryable, required: RequiredSchema): Promise<void> {
  const status = await readSchemaStatus(q, required);
  if (status.missing.length > 0) throw new SchemaOutdatedError(status);
}
