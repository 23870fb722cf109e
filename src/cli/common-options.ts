import type { Command } from "commander";
import { loadInstallationConfig, type InstallationConfig } from "../config/installation-config.js";
import type { Db } from "../store/db.js";
import { openDatabase } from "../main/database.js";

export interface CommonOptions {
  databaseUrl?: string;
  pglite?: string;
  config?: string;
}

/** `--database-url`, `--pglite` and `--config`, shared by the process commands. */
export function withCommonOptions(cmd: Command): Command {
  return cmd
    .option("--database-url <url>", "PostgreSQL connection string (default: $OCC_DATABASE_URL)")
    .option("--pglite <dir>", "embedded PGlite data folder instead of PostgreSQL")
    .option("--config <file>", "Installation configuration YAML (default: $OCC_CONFIG_PATH)");
}

export async function openFromOptions(opts: CommonOptions): Promise<{
  db: Db;
  config: InstallationConfig;
}> {
  const config = await loadInstallationConfig(opts.config ?? process.env.OCC_CONFIG_PATH);
  const db = await openDatabase({ databaseUrl: opts.databaseUrl, pgliteDir: opts.pglite });
  return { db, config };
}
