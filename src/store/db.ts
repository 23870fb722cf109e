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

/** A condition to embed in another statement, with its parameters numbered from $1. */
export interface SqlCondition {
  readonly sql: string;
  readonly params: readonly SqlParam[];
}

export interface Queryable {
  /** One parameterised statement. */
  query<R = unknown>(sql: string, params?: readonly SqlParam[]): Promise<QueryResult<R>>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** A live `LISTEN` on one channel; `close` stops it and releases its connection. */
export interface Subscription {
  close(): Promise<void>;
}

/** Callbacks of {@link Db.listen}. */
export interface ListenHandlers {
  /** Called with the payload of every `NOTIFY` on the channel, after the sender commits. */
  readonly onNotify: (payload: string) => void;
  /**
   * Called at most once when the subscription dies on its own (its connection was lost).
   * Notifications sent meanwhile are lost, so the caller should resubscribe and then look
   * for work it may have missed.
   */
  readonly onError?: (err: Error) => void;
}

/** The channel names `listen` accepts: plain lowercase identifiers, so no quoting is needed. */
export const CHANNEL_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

export interface Db extends Queryable {
  readonly dialect: "postgres" | "pglite";
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Subscribes to `NOTIFY` on `channel` (which must match {@link CHANNEL_PATTERN}). The `pg`
   * adapter holds one dedicated connection per subscription, outside the pool; PGlite delivers
   * in-process. Resolves once the `LISTEN` is active, so a `NOTIFY` committed afterwards is
   * delivered.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<Subscription>;
  close(): Promise<void>;
}

/** One trivial statement: resolves when the database answers (readiness checks). */
export async function ping(q: Queryable): Promise<void> {
  await q.query("SELECT 1");
}

/** Throws unless `channel` is a name `listen` accepts (it is spliced into `LISTEN <name>`). */
export function assertChannelName(channel: string): void {
  if (!CHANNEL_PATTERN.test(channel)) {
    throw new Error(
      `listen: channel ${JSON.stringify(channel)} must match ${String(CHANNEL_PATTERN)}`,
    );
  }
}
