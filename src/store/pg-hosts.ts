/**
 * Connections to the host of a (possibly multi-host) PostgreSQL URL whose session matches
 * `target_session_attrs` — libpq's behaviour, which node-postgres lacks. One `pg` pool per
 * host; a connection is checked once when it is first handed out (a pooled connection keeps its
 * verdict), and one that does not match is destroyed. Hosts are tried starting from the last
 * one that matched, then in the URL's order, so after a failover every new connection goes to
 * the promoted server without first waiting on the old one. A connection to a server that
 * stopped or was demoted fails its next statement and is destroyed by the adapter (`pg-db.ts`),
 * so the pools drain of it by themselves.
 */
import pg from "pg";
import { NoTargetError, SESSION_CHECK_SQL, sessionMatches, type PgTargets } from "./pg-targets.js";

/**
 * How long one host may take to accept a connection, with several hosts: a host that drops
 * packets (a lost node) must not hold every request until the kernel gives up. One host keeps
 * `pg`'s default (no limit) as before.
 */
export const HOST_CONNECT_TIMEOUT_MS = 5_000;

export interface PgHosts {
  /** A pooled client on a matching host; release it as usual. */
  connect(): Promise<pg.PoolClient>;
  /** A dedicated client (e.g. for `LISTEN`) on a matching host; `setup` runs before it connects. */
  client(setup: (client: pg.Client) => void): Promise<pg.Client>;
  end(): Promise<void>;
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function openPgHosts(
  parsed: PgTargets,
  opts: { readonly max: number; readonly onIdleError: (err: Error) => void },
): PgHosts {
  const { targets, sessionAttrs } = parsed;
  const timeout =
    targets.length > 1 ? { connectionTimeoutMillis: HOST_CONNECT_TIMEOUT_MS } : undefined;
  const pools = targets.map((t) => {
    const pool = new pg.Pool({ connectionString: t.connectionString, max: opts.max, ...timeout });
    pool.on("error", opts.onIdleError);
    return pool;
  });
  const verified = new WeakSet<pg.ClientBase>();
  let preferred = 0;

  /** Opens on each host in turn until one gives a matching session. */
  async function pick<C extends pg.ClientBase>(
    open: (index: number) => Promise<C>,
    discard: (client: C, err: Error) => Promise<void>,
  ): Promise<C> {
    const failures: string[] = [];
    let firstError: unknown;
    for (let k = 0; k < targets.length; k++) {
      const index = (preferred + k) % targets.length;
      const label = targets[index]?.label ?? String(index);
      let client: C;
      try {
        client = await open(index);
      } catch (err) {
        // One host: its own error, unchanged (its SQLSTATE, if any, still classifies it).
        if (targets.length === 1) throw err;
        failures.push(`${label}: ${reason(err)}`);
        firstError ??= err;
        continue;
      }
      if (sessionAttrs === "any" || verified.has(client)) {
        preferred = index;
        return client;
      }
      // A pooled client checked out has no pool listener, and pg emits an unexpected end of
      // the connection (a failover, a server stopped with `-m immediate`) as an 'error' event
      // besides failing the query: without a listener here that event ends the process (R5,
      // seed 20261202, sequence 65: a worker exited during `failover-postgres`). The failed
      // query is handled below; the event is only kept from being unhandled until the client is
      // handed over (its user listens) or discarded (ended by us, so no later event).
      const onError = (): void => undefined;
      client.on("error", onError);
      try {
        const res = await client.query(SESSION_CHECK_SQL);
        const row: unknown = res.rows[0];
        if (sessionMatches(sessionAttrs, row)) {
          verified.add(client);
          preferred = index;
          return client;
        }
        failures.push(`${label}: a standby or read-only server`);
        await discard(client, new Error(`${label} is not a ${sessionAttrs} session`));
      } catch (err) {
        failures.push(`${label}: ${reason(err)}`);
        firstError ??= err;
        await discard(client, err instanceof Error ? err : new Error(reason(err)));
      } finally {
        client.removeListener("error", onError);
      }
    }
    throw new NoTargetError(sessionAttrs, failures, firstError);
  }

  return {
    connect: () =>
      pick(
        (index) => {
          const pool = pools[index];
          if (pool === undefined) throw new Error(`no pool for host ${index}`);
          return pool.connect();
        },
        (client, err) => {
          client.release(err);
          return Promise.resolve();
        },
      ),
    client: (setup) =>
      pick(
        async (index) => {
          const client = new pg.Client({
            connectionString: targets[index]?.connectionString,
            ...timeout,
          });
          setup(client);
          try {
            await client.connect();
          } catch (err) {
            await client.end().catch(() => undefined);
            throw err;
          }
          return client;
        },
        (client) => client.end().catch(() => undefined),
      ),
    end: async () => {
      await Promise.all(pools.map((p) => p.end()));
    },
  };
}
