import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { Db, QueryResult, Queryable, SqlParam } from "./db.js";

type PgliteRunner = Pick<PGlite | Transaction, "query" | "exec">;

function queryable(runner: PgliteRunner): Queryable {
  return {
    async query<R>(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult<R>> {
      const res = await runner.query<R>(sql, [...params]);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await runner.exec(sql);
    },
  };
}

/**
 * The embedded adapter: PGlite (PostgreSQL compiled to WebAssembly) in this process, in memory
 * or persisted in `dataDir`. One connection, so transactions are serialised by PGlite itself.
 */
export async function openPglite(dataDir?: string): Promise<Db> {
  const db = dataDir === undefined ? new PGlite() : new PGlite(dataDir);
  await db.waitReady;
  return {
    dialect: "pglite",
    ...queryable(db),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> =>
      db.transaction((tx) => fn(queryable(tx))),
    close: () => db.close(),
  };
}
