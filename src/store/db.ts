/**
 * The database port: the one interface the product uses for PostgreSQL, with two adapters —
 * `pg` against a real server (production, integration tests) and PGlite (embedded default,
 * unit tests). Both run the same SQL; nothing above this port knows which one it has.
 */
export interface QueryResult<R> {
  readonly rows: R[];
  readonly rowCount: number;
}

export type SqlParam = string | number | boolean | null | Date | readonly string[];

export interface Queryable {
  /** One parameterised statement. */
  query<R = Record<string, unknown>>(
    sql: string,
    params?: readonly SqlParam[],
  ): Promise<QueryResult<R>>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly dialect: "postgres" | "pglite";
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
