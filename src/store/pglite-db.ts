import { PGlite, type Transaction } from "@electric-sql/pglite";
import {
  assertChannelName,
  type Db,
  type QueryResult,
  type Queryable,
  type SqlParam,
} from "./db.js";

type PgliteRunner = Pick<PGlite | Transaction, "query" | "exec">;

function queryable(runner: PgliteRunner): Queryable {
  return {
    async query<R>(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult<R>> {
      const res = await runner.query<R>(sql, [...params]);
      // PGlite reports `affectedRows: 0` for a SELECT; `pg` reports the rows returned. Taking
      // the larger of the two gives `pg`'s meaning for SELECT, DML, and DML with RETURNING.
      return { rows: res.rows, rowCount: Math.max(res.affectedRows ?? 0, res.rows.length) };
    },
    async exec(sql: string): Promise<void> {
      await runner.exec(sql);
    },
  };
}

/**
 * The embedded adapter: PGlite (PostgreSQL compiled to WebAssembly) in this process, in memory
 * or persisted in `dataDir`. One connection, so transactions are serialised by PGlite itself.
 * `NOTIFY` is delivered in-process through PGlite's own `listen`, after the sender commits,
 * exactly as on a server; there is no connection to lose, so `onError` is never called.
 */
export async function openPglite(dataDir?: string): Promise<Db> {
  const db = dataDir === undefined ? new PGlite() : new PGlite(dataDir);
  await db.waitReady;
  return {
    dialect: "pglite",
    ...queryable(db),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> =>
      db.transaction((tx) => fn(queryable(tx))),
    async listen(channel, handlers) {
      assertChannelName(channel);
      const unlisten = await db.listen(channel, handlers.onNotify);
      let closed = false;
      return {
        async close() {
          if (closed) return;
          closed = true;
          await unlisten();
        },
      };
    },
    close: () => db.close(),
  };
}
