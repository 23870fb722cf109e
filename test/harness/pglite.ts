/**
 * The embedded database for unit tests: a migrated in-memory PGlite (one per test file —
 * opening one takes seconds, so tests isolate themselves by unique names, kinds and subjects),
 * a manual clock, and unique-name helpers.
 */
import { afterAll } from "vitest";
import type { Db } from "../../src/store/db.js";
import { migrate } from "../../src/store/migrate.js";
import { openPglite } from "../../src/store/pglite-db.js";

/** A fresh PGlite with every migration applied: in memory, or in the folder `dir`. */
export async function openMigratedPglite(dir?: string): Promise<Db> {
  const db = await openPglite(dir);
  await migrate(db);
  return db;
}

/** A migrated PGlite for the whole test file, closed after its last test. */
export async function migratedPgliteForFile(): Promise<Db> {
  const db = await openMigratedPglite();
  afterAll(() => db.close());
  return db;
}

/** A clock tests move by hand; starts at a fixed instant so expected times are exact. */
export class ManualClock {
  private current: number;
  constructor(start = "2030-01-01T00:00:00.000Z") {
    this.current = Date.parse(start);
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  /** `now + ms`, for expectations. */
  plus(ms: number): Date {
    return new Date(this.current + ms);
  }
}

let counter = 0;

/** A name no other test in this process uses: `<prefix>-<n>` (lowercase, DNS-safe). */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** The SQLSTATE and constraint of a rejected promise, for asserting database refusals. */
export async function refusal(
  promise: Promise<unknown>,
): Promise<{ code: string | undefined; constraint: string | undefined }> {
  try {
    await promise;
  } catch (err) {
    const e = err as { code?: unknown; constraint?: unknown };
    return {
      code: typeof e.code === "string" ? e.code : undefined,
      constraint: typeof e.constraint === "string" ? e.constraint : undefined,
    };
  }
  throw new Error("expected the database to refuse, but the statement succeeded");
}

/**
 * The string literals a CHECK constraint (or a domain's CHECK) lists, e.g. the values of
 * `status IN ('a', 'b')` — so tests can prove a TypeScript vocabulary equals the SQL one.
 */
export async function checkLiterals(db: Db, constraint: string): Promise<string[]> {
  const res = await db.query<{ def: string }>(
    "SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = $1",
    [constraint],
  );
  const def = res.rows[0]?.def;
  if (def === undefined) throw new Error(`no constraint named ${constraint}`);
  return [...def.matchAll(/'([^']*)'::text/g)].map((m) => m[1] ?? "").sort();
}
