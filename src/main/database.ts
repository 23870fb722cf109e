import type { Db } from "../store/db.js";
import { openPostgres } from "../store/pg-db.js";

/** Where the database is: a PostgreSQL URL, or an embedded PGlite folder. */
export interface DatabaseSelection {
  readonly databaseUrl?: string | undefined;
  readonly pgliteDir?: string | undefined;
}

/**
 * Opens the selected database. PostgreSQL comes from `--database-url` or `OCC_DATABASE_URL`;
 * PGlite (the embedded default of `occ dev up`) from a folder. Neither → a message with both
 * fixes. Configuration picks the adapter; no code path branches on "test" or "dev".
 */
export async function openDatabase(sel: DatabaseSelection): Promise<Db> {
  if (sel.pgliteDir !== undefined && sel.pgliteDir !== "") {
    // Loaded only when selected: a process on PostgreSQL never pays for PGlite's module.
    const { openPglite } = await import("../store/pglite-db.js");
    return openPglite(sel.pgliteDir);
  }
  const url = sel.databaseUrl ?? process.env.OCC_DATABASE_URL;
  if (url === undefined || url === "") {
    throw new Error(
      "no database given: pass --database-url postgres://… (or set OCC_DATABASE_URL), or --pglite DIR for the embedded database",
    );
  }
  return openPostgres(url);
}
