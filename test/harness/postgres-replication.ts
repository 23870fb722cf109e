import { join } from "node:path";
import {
  initPostgres,
  makePostgresDirs,
  runPostgres,
  runPostgresTool,
  type RunningPostgres,
} from "./postgres.js";

/**
 * A PostgreSQL primary with one streaming standby (real replication: `pg_basebackup -R`), both
 * on loopback with their own ports and data directories under `dir`. With `synchronous`, the
 * primary waits for the standby to flush every commit (`synchronous_standby_names = '*'`,
 * `synchronous_commit = on`) before it answers it.
 */
export interface ReplicatedPostgres {
  readonly primary: RunningPostgres;
  readonly standby: RunningPostgres;
  /** `postgres://postgres@127.0.0.1:<primary>,127.0.0.1:<standby>/<database>?target_session_attrs=read-write` */
  multiHostUrl(database: string): string;
  /** The standby's data directory (`PGDATA` for `pg_ctl promote`). */
  readonly standbyData: string;
  /** Stops whatever still runs. */
  stop(): Promise<void>;
}

export async function startReplicatedPostgres(
  dir: string,
  opts: { readonly synchronous: boolean },
): Promise<ReplicatedPostgres> {
  const primaryDir = join(dir, "primary");
  const standbyDir = join(dir, "standby");
  makePostgresDirs(dir);
  initPostgres(primaryDir, join(primaryDir, "data"));
  // initdb's trust authentication already admits replication connections from loopback.
  const primary = await runPostgres(primaryDir, join(primaryDir, "data"), {
    settings: opts.synchronous
      ? ["synchronous_standby_names=*", "synchronous_commit=on"]
      : ["synchronous_commit=local"],
  });
  const running: RunningPostgres[] = [primary];
  const stop = async () => {
    await Promise.allSettled(running.map((s) => s.stop()));
  };
  try {
    makePostgresDirs(standbyDir);
    const standbyData = join(standbyDir, "data");
    runPostgresTool("pg_basebackup", [
      ...["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres"],
      ...["-D", standbyData, "-R", "--no-sync", "-X", "stream", "-c", "fast"],
    ]);
    const standby = await runPostgres(standbyDir, standbyData, {
      settings: ["hot_standby=on"],
    });
    running.push(standby);
    return {
      primary,
      standby,
      multiHostUrl: (database) =>
        `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/${database}` +
        "?target_session_attrs=read-write",
      standbyData,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
