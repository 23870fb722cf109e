import { randomBytes } from "node:crypto";
import { afterAll, inject } from "vitest";
import type { NamespaceId } from "../../src/domain/index.js";
import { bootstrap } from "../../src/services/bootstrap.js";
import type { Db } from "../../src/store/db.js";
import { migrate } from "../../src/store/migrate.js";
import { openPostgres } from "../../src/store/pg-db.js";
import { namespaceQueueConfig } from "../../src/work/namespace-work.js";
import { sqlOnce } from "./postgres.js";

/** A fresh database on the run's PostgreSQL server, so test files never share rows. */
export async function createTestDatabase(
  opts: {
    max?: number;
    /** Another server's maintenance URL (default: the run's server). */
    adminUrl?: string;
  } = {},
): Promise<{
  db: Db;
  url: string;
  drop(): Promise<void>;
}> {
  const adminUrl = opts.adminUrl ?? inject("env").databaseUrl;
  const name = `occ_t_${randomBytes(6).toString("hex")}`;
  await sqlOnce(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), opts.max === undefined ? {} : { max: opts.max });
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      await sqlOnce(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/**
 * {@link createTestDatabase} after `occ migrate`, for one test file: created now, dropped after
 * the file's tests.
 */
export async function migratedDatabaseForFile(opts: { max?: number } = {}) {
  const database = await createTestDatabase(opts);
  await migrate(database.db);
  afterAll(() => database.drop());
  return database;
}

/** A {@link createTestDatabase} after `occ migrate` and `occ bootstrap`. */
export interface BootstrappedDatabase {
  readonly db: Db;
  readonly url: string;
  readonly drop: () => Promise<void>;
  /** The administrator's API key bootstrap issued. */
  readonly apiKey: string;
  /** The `default` Namespace bootstrap created (the one an operator binds when preprovisioned). */
  readonly defaultNamespaceId: NamespaceId;
}

/**
 * A fresh database, migrated and bootstrapped (bundled `kubernetes` compute, no content
 * checks): what `occ migrate` and `occ bootstrap` leave for the API and the worker.
 */
export async function createBootstrappedDatabase(
  opts: {
    readonly max?: number;
    readonly queue?: ReturnType<typeof namespaceQueueConfig>;
    readonly controllerNamespace?: string;
  } = {},
): Promise<BootstrappedDatabase> {
  const database = await createTestDatabase(opts.max === undefined ? {} : { max: opts.max });
  await migrate(database.db);
  const boot = await bootstrap({
    db: database.db,
    queue: opts.queue ?? namespaceQueueConfig(),
    compute: { source: "bundled", name: "kubernetes" },
    controllerNamespace: opts.controllerNamespace ?? "openclaw-system",
    contentChecks: [],
  });
  if (boot.apiKey === null) throw new Error("bootstrap issued no key");
  return {
    db: database.db,
    url: database.url,
    drop: () => database.drop(),
    apiKey: boot.apiKey,
    defaultNamespaceId: boot.defaultNamespace.id,
  };
}
