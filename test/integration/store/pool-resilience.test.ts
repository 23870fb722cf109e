import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import pg from "pg";
import { openPostgres } from "../../../src/store/pg-db.js";
import { createTestDatabase } from "../../harness/db.js";

describe("the PostgreSQL adapter when the server ends its idle connections", () => {
  it("reports the error instead of crashing, and the next query reconnects", async () => {
    const t = await createTestDatabase();
    const seen: Error[] = [];
    const db = openPostgres(t.url, { max: 2, onIdleError: (err) => seen.push(err) });
    try {
      const before = await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const pid = before.rows[0]?.pid;
      const admin = new pg.Client({ connectionString: inject("env").databaseUrl });
      await admin.connect();
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      await admin.end();
      await new Promise((r) => setTimeout(r, 200));
      expect(seen.map((e) => (e as Error & { code?: string }).code)).toEqual(["57P01"]);
      const after = await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      expect(after.rows[0]?.pid).not.toBe(pid);
    } finally {
      await db.close();
      await t.drop();
    }
  });
});
