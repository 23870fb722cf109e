import { describe, expect, it } from "vitest";
import { loadMigrations, migrate } from "../../../src/store/migrate.js";
import { createTestDatabase, migratedDatabaseForFile } from "../../harness/db.js";

const t = await migratedDatabaseForFile({ max: 25 });

function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && "code" in err && err.code === "23505";
}

describe("partial unique index on real PostgreSQL", () => {
  it("lets exactly one of 20 concurrent inserts of the same active name win", async () => {
    const attempts = Array.from({ length: 20 }, (_, i) =>
      t.db.transaction(async (tx) => {
        // Hold each transaction open a moment so the inserts genuinely overlap.
        await tx.query("SELECT pg_sleep(0.05)");
        await tx.query("INSERT INTO occ_smoke_claims (name, claimant) VALUES ($1, $2)", [
          "customer-support-prod",
          `tenant-${i}`,
        ]);
      }),
    );
    const results = await Promise.allSettled(attempts);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const r of lost) expect(isUniqueViolation(r.reason)).toBe(true);

    const rows = await t.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM occ_smoke_claims WHERE name = $1",
      ["customer-support-prod"],
    );
    expect(rows.rows[0]?.n).toBe("1");
  });

  it("allows a new claim once the previous one is released (the index is partial)", async () => {
    await t.db.query("INSERT INTO occ_smoke_claims (name, claimant) VALUES ('ns-b', 'x')");
    await t.db.query("UPDATE occ_smoke_claims SET released_at = now() WHERE name = 'ns-b'");
    await t.db.query("INSERT INTO occ_smoke_claims (name, claimant) VALUES ('ns-b', 'y')");
    const rows = await t.db.query<{ claimant: string; active: boolean }>(
      "SELECT claimant, released_at IS NULL AS active FROM occ_smoke_claims WHERE name = 'ns-b' ORDER BY id",
    );
    expect(rows.rows).toEqual([
      { claimant: "x", active: false },
      { claimant: "y", active: true },
    ]);
  });

  it("applies migrations exactly once when two runners start together", async () => {
    const other = await createTestDatabase();
    try {
      const files = (await loadMigrations()).map((m) => m.file);
      const [a, b] = await Promise.all([migrate(other.db), migrate(other.db)]);
      expect([...a.applied, ...b.applied].sort()).toEqual(files);
      const again = await migrate(other.db);
      expect(again).toEqual({ applied: [], alreadyApplied: files });
    } finally {
      await other.drop();
    }
  });
});
