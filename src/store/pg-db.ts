import pg from "pg";
import type { Db, QueryResult, Queryable, SqlParam } from "./db.js";

type PgRunner = Pick<pg.Pool | pg.PoolClient, "query">;

function queryable(runner: PgRunner): Queryable {
  return {
    async query<R>(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult<R>> {
      const res = await runner.query(sql, [...params]);
      return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await runner.query(sql);
    },
  };
}

/** The production adapter: a `pg` pool against a real PostgreSQL server. */
export function openPostgres(connectionString: string, opts: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString, max: opts.max ?? 10 });
  return {
    dialect: "postgres",
    ...queryable(pool),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const out = await fn(queryable(client));
        await client.query("COMMIT");
        return out;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
