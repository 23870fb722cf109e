import type { Command } from "commander";
import type { Db } from "../store/db.js";
import { migrate } from "../store/migrate.js";
import { openPostgres } from "../store/pg-db.js";
import { openPglite } from "../store/pglite-db.js";

interface MigrateOptions {
  databaseUrl?: string;
  pglite?: string;
}

/** `occ migrate`: applies the SQL migrations to PostgreSQL (`--database-url`) or PGlite. */
export function registerMigrateCommand(program: Command): void {
  program
    .command("migrate")
    .description("apply pending database migrations (PostgreSQL or an embedded PGlite folder)")
    .option("--database-url <url>", "PostgreSQL connection string (default: $OCC_DATABASE_URL)")
    .option("--pglite <dir>", "embedded PGlite data folder instead of PostgreSQL")
    .action(async (opts: MigrateOptions) => {
      const db = await openDatabase(opts);
      try {
        const result = await migrate(db);
        for (const file of result.applied) console.log(`applied ${file}`);
        console.log(
          `database is at the current schema (${result.applied.length} applied, ${result.alreadyApplied.length} already applied)`,
        );
      } finally {
        await db.close();
      }
    });
}

async function openDatabase(opts: MigrateOptions): Promise<Db> {
  if (opts.pglite !== undefined) return openPglite(opts.pglite);
  const url = opts.databaseUrl ?? process.env.OCC_DATABASE_URL;
  if (url === undefined || url === "") {
    throw new Error(
      "no database given: pass --database-url postgres://… (or set OCC_DATABASE_URL), or --pglite DIR for the embedded database",
    );
  }
  return openPostgres(url);
}
