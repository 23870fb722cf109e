import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/store/db.js";
import { openPglite } from "../../../src/store/pglite-db.js";

let db: Db;
beforeAll(async () => {
  db = await openPglite();
  await db.exec("CREATE TABLE t (n int)");
});
afterAll(async () => {
  await db.close();
});

describe("PGlite adapter", () => {
  it("reports rowCount with pg's meaning for SELECT, DML and DML with RETURNING", async () => {
    expect((await db.query("INSERT INTO t VALUES (1), (2), (3)")).rowCount).toBe(3);
    expect((await db.query("SELECT * FROM t")).rowCount).toBe(3);
    expect((await db.query("UPDATE t SET n = n + 1 WHERE n > 1")).rowCount).toBe(2);
    expect((await db.query("DELETE FROM t WHERE n = 1 RETURNING n")).rowCount).toBe(1);
    expect((await db.query("SELECT * FROM t WHERE n > 100")).rowCount).toBe(0);
  });

  it("delivers NOTIFY to a listener only after the sender commits, and stops after close", async () => {
    const got: string[] = [];
    const sub = await db.listen("occ_test", { onNotify: (p) => got.push(p) });
    await db.transaction(async (tx) => {
      await tx.query("SELECT pg_notify('occ_test', 'one')");
      expect(got).toEqual([]);
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual(["one"]);
    await sub.close();
    await db.query("SELECT pg_notify('occ_test', 'two')");
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual(["one"]);
  });
});
