import type { Command } from "commander";
import { migrate } from "../store/migrate.js";
import { openDatabase } from "../main/database.js";

/** `occ migrate`: applies the SQL migrations to PostgreSQL (`--database-url`) or PGlite. */
export function registerMigrateCommand(program: Command): void {
  program
    .command("migrate")
    .description("apply pending database migrations (PostgreSQL or an embedded PGlite folder)")
    .option("--database-url <url>", "PostgreSQL connection string (default: $OCC_DATABASE_URL)")
    .option("--pglite <dir>", "embedded PGlite data folder instead of PostgreSQL")
    .action(async (opts: { databaseUrl?: string; pglite?: string }) => {
      const db = await openDatabase({ databaseUrl: opts.databaseUrl, pgliteDir: opts.pglite });
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
