/**
 * Fault injection for the database port: a {@link Db} whose statements can be made to fail
 * like a lost connection, or preceded by another statement in the same transaction (a race
 * staged at an exact point). Used over PGlite in unit tests and over PostgreSQL in
 * integration tests.
 */
import type { Db, Queryable, SqlParam } from "../../src/store/db.js";

export interface FaultyDb extends Db {
  /**
   * Runs `fn` while statements for which `predicate` is true throw a connection-style error (no
   * SQLSTATE); they go through again once `fn` settles.
   */
  whileFailing<T>(predicate: (sql: string) => boolean, fn: () => Promise<T>): Promise<T>;
  /** Runs `hook` with the transaction before a statement matching `predicate` (once). */
  beforeStatement(
    predicate: (sql: string) => boolean,
    hook: (tx: Queryable) => Promise<void>,
  ): void;
}

export function faulty(db: Db): FaultyDb {
  let failing: ((sql: string) => boolean) | null = null;
  let hook: { predicate: (sql: string) => boolean; run: (tx: Queryable) => Promise<void> } | null =
    null;
  const wrap = (q: Queryable): Queryable => ({
    async query<R>(sql: string, params?: readonly SqlParam[]) {
      if (failing?.(sql) === true) throw new Error("injected: connection lost");
      if (hook?.predicate(sql) === true) {
        const run = hook.run;
        hook = null;
        await run(q);
      }
      return q.query<R>(sql, params);
    },
    exec: (sql) => q.exec(sql),
  });
  return {
    ...wrap(db),
    dialect: db.dialect,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    listen: (c, h) => db.listen(c, h),
    close: () => db.close(),
    async whileFailing(predicate, fn) {
      failing = predicate;
      try {
        return await fn();
      } finally {
        failing = null;
      }
    },
    beforeStatement(predicate, run) {
      hook = { predicate, run };
    },
  };
}
