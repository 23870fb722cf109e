/**
 * The settle transaction's side of a declared record (`record-writes.ts`): the writes run in
 * their declared order, composable ones as gated statements, and they leave the rows the
 * composed statement would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeGated, StatementParams, type GatedPart } from "../../../src/store/composed.js";
import type { Db } from "../../../src/store/db.js";
import { openPglite } from "../../../src/store/pglite-db.js";
import {
  composable,
  composedParts,
  inTransaction,
  runWrites,
} from "../../../src/worker/record-writes.js";

let db: Db;
beforeAll(async () => {
  db = await openPglite();
  await db.query("CREATE TABLE written (run text, seq serial, what text)");
});
afterAll(() => db.close());

/** A gated insert of `what` in run `run`. */
const insert =
  (run: string, what: string): GatedPart =>
  (p, gate, name) => [
    {
      name: `${name}_w`,
      sql: `INSERT INTO written (run, what) SELECT ${p.add(run)}, ${p.add(what)} FROM ${gate} RETURNING seq`,
    },
  ];

const rows = async (run: string) =>
  (
    await db.query<{ what: string }>("SELECT what FROM written WHERE run = $1 ORDER BY seq", [run])
  ).rows.map((r) => r.what);

describe("runWrites in the settle transaction", () => {
  it("runs composable writes and steps in their declared order", async () => {
    await db.transaction(async (tx) => {
      await runWrites(tx, [
        composable(insert("ordered", "a")),
        composable(insert("ordered", "b")),
        inTransaction((q) => q.query("INSERT INTO written (run, what) VALUES ('ordered', 'c')")),
        composable(insert("ordered", "d")),
      ]);
    });
    expect(await rows("ordered")).toEqual(["a", "b", "c", "d"]);
  });

  it("leaves what the composed statement leaves with the same parts", async () => {
    const writes = [composable(insert("plain", "x")), composable(insert("plain", "y"))];
    await db.transaction((tx) => runWrites(tx, writes));
    const p = new StatementParams();
    const parts = [insert("composed", "x"), insert("composed", "y")];
    await db.query(composeGated(p, "SELECT 1 AS moved", parts, "moved"), p.values);
    expect(await rows("plain")).toEqual(await rows("composed"));
    expect(await rows("plain")).toEqual(["x", "y"]);
    expect(composedParts(writes)).toHaveLength(2);
  });

  it("writes nothing when the transaction rolls back", async () => {
    await expect(
      db.transaction(async (tx) => {
        await runWrites(tx, [composable(insert("rolled", "z"))]);
        throw new Error("the move was refused");
      }),
    ).rejects.toThrow("refused");
    expect(await rows("rolled")).toEqual([]);
  });
});
