import { createHash } from "node:crypto";
import type pg from "pg";
import {
  assertChannelName,
  type Db,
  type ListenHandlers,
  type QueryResult,
  type Queryable,
  type SqlParam,
  type Subscription,
} from "./db.js";
import { openPgHosts, type PgHosts } from "./pg-hosts.js";
import { parsePgTargets, sessionUnusable } from "./pg-targets.js";

type PgRunner = Pick<pg.PoolClient, "query">;

/** At most this many distinct statement texts are prepared (per process, so per connection). */
const PREPARED_STATEMENTS = 256;

/**
 * Names for server-side prepared statements, by statement text. A parameterised statement is
 * sent with a name derived from its text, so each pooled connection parses and plans it once
 * and afterwards only binds and executes it (issue 20, P5: the create's statements run on
 * every request). The product's statements are a fixed set built by code, never data; the cap
 * keeps a connection's prepared statements (server memory) and this map bounded all the same —
 * texts beyond it run unnamed, as before. A statement without parameters is never named: it may
 * be a script of several statements, which only the simple protocol accepts.
 */
function statementNamer(): (sql: string) => string | undefined {
  const names = new Map<string, string>();
  return (sql) => {
    const known = names.get(sql);
    if (known !== undefined || names.size >= PREPARED_STATEMENTS) return known;
    const name = `occ_${createHash("sha256").update(sql).digest("hex").slice(0, 24)}`;
    names.set(sql, name);
    return name;
  };
}

function queryable(runner: PgRunner, nameOf: (sql: string) => string | undefined): Queryable {
  return {
    async query<R>(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult<R>> {
      const name = params.length === 0 ? undefined : nameOf(sql);
      const res =
        name === undefined
          ? await runner.query(sql, [...params])
          : await runner.query({ name, text: sql, values: [...params] });
      return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await runner.query(sql);
    },
  };
}

/**
 * `LISTEN` on a dedicated client rather than a pooled one: a pooled connection would be handed
 * to other queries and returned with the subscription still attached, and holding one from
 * the pool would shrink it for the whole process. The client is opened like a pooled one
 * (the first host whose session matches), so after a failover a resubscription reaches the
 * new primary.
 */
async function listenPostgres(
  hosts: PgHosts,
  channel: string,
  handlers: ListenHandlers,
): Promise<Subscription> {
  assertChannelName(channel);
  let closing = false;
  let reported = false;
  // Only the subscribed client reports: a host's client that was tried and closed does not.
  let live = false;
  const fail = (err: Error): void => {
    if (!live || closing || reported) return;
    reported = true;
    handlers.onError?.(err);
  };
  let client: pg.Client;
  try {
    client = await hosts.client((c) => {
      c.on("notification", (msg) => {
        if (msg.channel === channel) handlers.onNotify(msg.payload ?? "");
      });
      c.on("error", (err) => {
        fail(err);
      });
      c.on("end", () => {
        fail(new Error(`listen ${channel}: connection to PostgreSQL ended`));
      });
    });
    await client.query(`LISTEN ${channel}`).catch(async (err: unknown) => {
      await client.end().catch(() => undefined);
      throw err;
    });
    live = true;
  } catch (err) {
    closing = true;
    throw new Error(`listen ${channel}: could not subscribe`, { cause: err });
  }
  return {
    async close() {
      if (closing) return;
      closing = true;
      await client.end().catch(() => undefined);
    },
  };
}

/**
 * The production adapter: `pg` pools against a real PostgreSQL server — one per host of a
 * multi-host URL, each connection checked against `target_session_attrs` (`pg-hosts.ts`).
 */
export function openPostgres(
  connectionString: string,
  opts: { max?: number; onIdleError?: (err: Error) => void } = {},
): Db {
  const hosts = openPgHosts(parsePgTargets(connectionString), {
    max: opts.max ?? 10,
    // An idle pooled connection that the server ends (a restart, a failover, an administrator's
    // pg_terminate_backend) is emitted as an error on the pool; without a listener Node treats
    // it as unhandled and the whole process exits. The pool has already dropped that client and
    // the next query opens a new one, so it is reported, never fatal.
    onIdleError: (err) => opts.onIdleError?.(err),
  });
  const nameOf = statementNamer();
  /**
   * Runs `fn` on a checked-out client. The client is destroyed rather than returned to the pool
   * when the connection broke, or when `fn` failed and `discard(err)` says so.
   */
  const withClient = async <T>(
    fn: (client: pg.PoolClient) => Promise<T>,
    discard: (err: unknown) => boolean,
  ): Promise<T> => {
    const client = await hosts.connect();
    // A checked-out client has no pool listener: a connection the server ends between two
    // statements (a restart while the transaction awaits other work) would be an unhandled
    // 'error' event and end the process. Kept here, it fails the next statement instead, and
    // the broken client is destroyed rather than returned to the pool.
    let broken: Error | undefined;
    const onError = (err: Error): void => {
      broken = err;
    };
    client.on("error", onError);
    try {
      return await fn(client);
    } catch (err) {
      if (discard(err)) broken ??= err instanceof Error ? err : new Error(String(err));
      throw err;
    } finally {
      client.removeListener("error", onError);
      client.release(broken);
    }
  };
  return {
    dialect: "postgres",
    // As pg's own pool.query: a client whose statement failed is not reused.
    query: (sql, params) =>
      withClient(
        (client) => queryable(client, nameOf).query(sql, params),
        () => true,
      ),
    exec: (sql) =>
      withClient(
        (client) => queryable(client, nameOf).exec(sql),
        () => true,
      ),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => {
      let rolledBack = true;
      return withClient(
        async (client) => {
          try {
            await client.query("BEGIN");
            const out = await fn(queryable(client, nameOf));
            await client.query("COMMIT");
            return out;
          } catch (err) {
            await client.query("ROLLBACK").catch(() => {
              rolledBack = false;
            });
            throw err;
          }
        },
        // A session that could not roll back, or that the server says it cannot use any more
        // (a demoted primary refusing writes, an administrator's shutdown), is not kept.
        (err) => !rolledBack || sessionUnusable(err),
      );
    },
    listen: (channel, handlers) => listenPostgres(hosts, channel, handlers),
    close: () => hosts.end(),
  };
}
