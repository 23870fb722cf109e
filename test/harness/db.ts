import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import type { Db } from "../../src/store/db.js";
import { openPostgres } from "../../src/store/pg-db.js";

/** A fresh database on the run's PostgreSQL server, so test files never share rows. */
export async function createTestDatabase(opts: { max?: number } = {}): Promise<{
  db: Db;
  url: string;
  drop(): Promise<void>;
}> {
  const adminUrl = inject("env").databaseUrl;
  const name = `occ_t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openPostgres(url.toString(), opts);
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
