import { rm } from "node:fs/promises";
import { join } from "node:path";
import {
  initPostgres,
  makePostgresDirs,
  runPostgres,
  runPostgresTool,
  sqlOnce,
  type RunningPostgres,
} from "./postgres.js";

/**
 * A PostgreSQL primary with one streaming standby (real replication: `pg_basebackup -R`), both
 * on loopback with their own ports and data directories under `dir`. With `synchronous`, the
 * primary waits for the standby to flush every commit (`synchronous_standby_names = '*'`,
 * `synchronous_commit = on`) before it answers it.
 */
export interface ReplicatedPostgres {
  /** The current primary and standby (they swap on {@link failover}). */
  readonly primary: RunningPostgres;
  readonly standby: RunningPostgres;
  /** The standby's data directory (`PGDATA` for `pg_ctl promote`). */
  readonly standbyData: string;
  /**
   * `postgres://postgres@127.0.0.1:<first>,127.0.0.1:<second>/<database>?target_session_attrs=read-write`:
   * both ports, which stay the same across failovers.
   */
  multiHostUrl(database: string): string;
  /**
   * A whole failover cycle: the primary crashes (`-m immediate`), the standby is promoted, and a
   * new standby is cloned from it on the lost primary's port, so the multi-host URL stays valid
   * and another failover can follow. Synchronous again once the new standby streams.
   */
  failover(): Promise<void>;
  /** Stops whatever still runs. */
  stop(): Promise<void>;
}

interface Node {
  readonly dir: string;
  readonly data: string;
  server: RunningPostgres;
}

export async function startReplicatedPostgres(
  dir: string,
  opts: { readonly synchronous: boolean },
): Promise<ReplicatedPostgres> {
  makePostgresDirs(dir);
  const first = { dir: join(dir, "a"), data: join(dir, "a", "data") };
  const second = { dir: join(dir, "b"), data: join(dir, "b", "data") };
  initPostgres(first.dir, first.data);
  // initdb's trust authentication already admits replication connections from loopback.
  const syncCommit = opts.synchronous ? ["synchronous_commit=on"] : ["synchronous_commit=local"];
  const primaryServer = await runPostgres(first.dir, first.data, {
    settings: [...(opts.synchronous ? ["synchronous_standby_names=*"] : []), ...syncCommit],
  });
  const nodes: Node[] = [{ ...first, server: primaryServer }];
  const stop = async () => {
    await Promise.allSettled(nodes.map((n) => n.server.stop()));
  };
  /** Clones `from`'s server into `into` and starts it as its standby (on `port` if given). */
  const cloneStandby = async (
    from: RunningPostgres,
    into: { dir: string; data: string },
    port?: number,
  ): Promise<RunningPostgres> => {
    makePostgresDirs(into.dir);
    runPostgresTool("pg_basebackup", [
      ...["-h", "127.0.0.1", "-p", String(from.port), "-U", "postgres"],
      ...["-D", into.data, "-R", "--no-sync", "-X", "stream", "-c", "fast"],
    ]);
    return runPostgres(into.dir, into.data, {
      settings: ["hot_standby=on", ...syncCommit],
      ...(port === undefined ? {} : { port }),
    });
  };
  try {
    nodes.push({ ...second, server: await cloneStandby(primaryServer, second) });
    const node = (i: number): Node => {
      const n = nodes[i];
      if (n === undefined) throw new Error(`no PostgreSQL node ${i}`);
      return n;
    };
    const ports = nodes.map((n) => n.server.port);
    return {
      get primary() {
        return node(0).server;
      },
      get standby() {
        return node(1).server;
      },
      get standbyData() {
        return node(1).data;
      },
      multiHostUrl: (database) =>
        `postgres://postgres@${ports.map((p) => `127.0.0.1:${p}`).join(",")}/${database}` +
        "?target_session_attrs=read-write",
      async failover() {
        const [lost, promoted] = [node(0), node(1)];
        await lost.server.stopWith("immediate");
        runPostgresTool("pg_ctl", ["promote", "-D", promoted.data, "-w"]);
        // Asynchronous until it has a standby again (the clone carries the old setting).
        await sqlOnce(promoted.server.adminUrl, "ALTER SYSTEM RESET synchronous_standby_names");
        await sqlOnce(promoted.server.adminUrl, "SELECT pg_reload_conf()");
        await rm(lost.data, { recursive: true, force: true });
        lost.server = await cloneStandby(promoted.server, lost, lost.server.port);
        if (opts.synchronous) {
          await sqlOnce(
            promoted.server.adminUrl,
            "ALTER SYSTEM SET synchronous_standby_names = '*'",
          );
          await sqlOnce(promoted.server.adminUrl, "SELECT pg_reload_conf()");
        }
        nodes.reverse();
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
