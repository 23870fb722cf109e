/**
 * Telling "the database is unavailable" (503) from "our code is wrong" (500) without reading
 * error messages. {@link guardDatabase} wraps the database port so that a failure raised *by a
 * database call* — no SQLSTATE at all (network, pool, closed connection) or a SQLSTATE of a
 * transient class — becomes a {@link DependencyUnavailableError}. Errors thrown by the caller's
 * own code inside a transaction pass through untouched, and SQL errors that mean a bug
 * (integrity, syntax, data) stay what they are.
 */
import type { Db, Queryable, SqlParam } from "./db.js";
import { isDatabaseError } from "./sql-errors.js";

/**
 * SQLSTATE classes that say nothing about the request: connection (08), resources (53),
 * operator intervention (57), system (58), transaction rollback (40: serialization, deadlock),
 * and object-not-available (55: lock timeouts).
 */
const TRANSIENT_SQLSTATE_CLASSES = ["08", "40", "53", "55", "57", "58"] as const;

/**
 * Single SQLSTATEs of other classes that are transient: `read_only_sql_transaction` — a write
 * reached a server that is (or just became) a standby, as during a failover.
 */
const TRANSIENT_SQLSTATES = ["25006"] as const;

/** The database could not be used, or did not confirm whether a commit happened. */
export class DependencyUnavailableError extends Error {
  override readonly name = "DependencyUnavailableError";
  /** True when the failure came after the transaction's work: it may have committed. */
  readonly outcomeUnknown: boolean;

  constructor(opts: { readonly cause: unknown; readonly outcomeUnknown?: boolean }) {
    super(
      opts.outcomeUnknown === true ? "database commit outcome unknown" : "database unavailable",
      {
        cause: opts.cause,
      },
    );
    this.outcomeUnknown = opts.outcomeUnknown ?? false;
  }
}

/** True when a failure of a database call is the database's, not the statement's. */
export function isTransientDatabaseFailure(err: unknown): boolean {
  if (err instanceof DependencyUnavailableError) return true;
  if (!isDatabaseError(err)) return true;
  return (
    TRANSIENT_SQLSTATE_CLASSES.some((c) => err.code.startsWith(c)) ||
    TRANSIENT_SQLSTATES.some((c) => c === err.code)
  );
}

function tag(err: unknown, outcomeUnknown = false): unknown {
  if (err instanceof DependencyUnavailableError) return err;
  return isTransientDatabaseFailure(err)
    ? new DependencyUnavailableError({ cause: err, outcomeUnknown })
    : err;
}

function guardQueryable(q: Queryable): Queryable {
  return {
    async query<R>(sql: string, params?: readonly SqlParam[]) {
      try {
        return await q.query<R>(sql, params);
      } catch (err) {
        throw tag(err);
      }
    },
    async exec(sql: string) {
      try {
        await q.exec(sql);
      } catch (err) {
        throw tag(err);
      }
    },
  };
}

const NOT_THROWN = Symbol("not thrown");

/** Wraps `db` as described in the module comment; listen/close are passed through. */
export function guardDatabase(db: Db): Db {
  return {
    ...guardQueryable(db),
    dialect: db.dialect,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      let thrownByFn: unknown = NOT_THROWN;
      let fnDone = false;
      try {
        return await db.transaction(async (tx) => {
          try {
            const out = await fn(guardQueryable(tx));
            fnDone = true;
            return out;
          } catch (err) {
            thrownByFn = err;
            throw err;
          }
        });
      } catch (err) {
        if (err === thrownByFn) throw err;
        // BEGIN/connect failed (nothing happened) or COMMIT failed (it may have happened).
        throw tag(err, fnDone);
      }
    },
    listen: (channel, handlers) => db.listen(channel, handlers),
    close: () => db.close(),
  };
}
