import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMigrations, migrate } from "../../../src/store/migrate.js";
import { openPglite } from "../../../src/store/pglite-db.js";

describe("migrations on PGlite", () => {
  it("applies the same SQL files and enforces the partial unique index", async () => {
    const db = await openPglite();
    try {
      const first = await migrate(db);
      expect(first.applied).toEqual((await loadMigrations()).map((m) => m.file));
      expect(await migrate(db)).toEqual({ applied: [], alreadyApplied: first.applied });

      await db.query("INSERT INTO occ_smoke_claims (name, claimant) VALUES ('a', 't1')");
      await expect(
        db.query("INSERT INTO occ_smoke_claims (name, claimant) VALUES ('a', 't2')"),
      ).rejects.toThrow(/occ_smoke_claims_active_name/);
      const rows = await db.query<{ claimant: string }>("SELECT claimant FROM occ_smoke_claims");
      expect(rows.rows).toEqual([{ claimant: "t1" }]);
    } finally {
      await db.close();
    }
  });

  it("rolls back a failed transaction completely", async () => {
    const db = await openPglite();
    try {
      await migrate(db);
      await expect(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO occ_smoke_claims (name, claimant) VALUES ('r', 'x')");
          await tx.query("INSERT INTO occ_smoke_claims (name, claimant) VALUES ('r', 'y')");
        }),
      ).rejects.toThrow();
      const rows = await db.query("SELECT * FROM occ_smoke_claims");
      expect(rows.rows).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it("stops when an applied migration was edited, naming the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "occ-mig-"));
    const db = await openPglite();
    try {
      await writeFile(join(dir, "0001_one.sql"), "CREATE TABLE one (id int);");
      await migrate(db, dir);
      await writeFile(join(dir, "0001_one.sql"), "CREATE TABLE one (id bigint);");
      await expect(migrate(db, dir)).rejects.toThrow(/0001_one\.sql changed after it was applied/);
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a badly named migration file instead of ignoring it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "occ-mig-"));
    try {
      await writeFile(join(dir, "1_Bad.sql"), "SELECT 1;");
      await expect(loadMigrations(dir)).rejects.toThrow(/1_Bad\.sql does not match/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
