import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import {
  validateInstallationConfig,
  type InstallationConfig,
} from "../src/config/installation-config.js";
import { startLocalCluster, type LocalCluster } from "../src/devcluster/local-cluster.js";
import { createObjectClient, loadKubeConfig } from "../src/drivers/kubernetes/client/index.js";
import {
  chartClusterRbac,
  createMissing,
  devTenantRolesClusterWide,
} from "../src/drivers/kubernetes/rbac-objects.js";
import { openPostgres } from "../src/store/pg-db.js";
import type { Db } from "../src/store/db.js";
import { migrate } from "../src/store/migrate.js";
import { startTestPostgres, type TestPostgres } from "../test/harness/postgres.js";

/** A real cluster and a real PostgreSQL for one benchmark run, with the chart's grants. */
export interface BenchEnvironment {
  /** A scratch folder, removed by `stop`. */
  readonly dir: string;
  readonly cluster: LocalCluster;
  readonly postgres: TestPostgres;
  readonly databaseUrl: string;
  readonly db: Db;
  readonly config: InstallationConfig;
  /**
   * An Installation configuration file for `occ api` / `occ worker` child processes: the
   * worker as `occ-worker`, the API as `occ-api`, worker concurrency 8
   * (BENCH_WORKER_CONCURRENCY).
   */
  readonly configFile: string;
  /** A fresh, migrated database on the same PostgreSQL (closed by `stop`). */
  database(name: string): Promise<{ readonly url: string; readonly db: Db }>;
  stop(): Promise<void>;
}

export async function startBenchEnvironment(): Promise<BenchEnvironment> {
  const dir = await mkdtemp(join(tmpdir(), "occ-bench-"));
  await chmod(dir, 0o711); // PostgreSQL runs as its own user and must reach its folder

  const cluster = await startLocalCluster({ dir: join(dir, "cluster") });
  // A failed PostgreSQL start must not leave the cluster running behind it.
  const postgres = await startTestPostgres(
    join(dir, "postgres"),
    undefined,
    // BENCH_P1_PG_STATS=1: per-statement calls, execution and planning time of P1's OCC window
    // (pg_stat_statements).
    // BENCH_PG_SETTINGS: more server settings, space-separated `name=value` (e.g. auto_explain's).
    [
      ...(process.env.BENCH_P1_PG_STATS === "1"
        ? ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track_planning=on"]
        : []),
      ...(process.env.BENCH_PG_SETTINGS ?? "").split(" ").filter((s) => s !== ""),
    ],
  ).catch(async (err: unknown) => {
    await cluster.stop();
    throw err;
  });
  const admin = createObjectClient(loadKubeConfig(cluster.kubeconfigs.admin));
  const user = (name: string) => ({ kind: "User", name }) as const;
  await createMissing(admin, chartClusterRbac(user("occ-worker"), user("occ-api")));
  // As in `occ dev up`: tenant roles bound cluster-wide, so no per-namespace bindings are timed.
  await createMissing(admin, devTenantRolesClusterWide(user("occ-worker"), user("occ-api")));
  admin.close();
  const c = new pg.Client({ connectionString: postgres.adminUrl });
  await c.connect();
  await c.query("CREATE DATABASE occ_bench");
  await c.end();
  const databaseUrl = postgres.adminUrl.replace(/\/postgres$/, "/occ_bench");
  const db = openPostgres(databaseUrl, { max: 20 });
  await migrate(db);
  // The bars compare OCC with an unbounded bare client: the token bucket (kubernetes.rateLimit,
  // default 100/s) would measure itself, so the bench lifts it unless BENCH_KUBE_RATE="qps/burst".
  const [qps, burst] = (process.env.BENCH_KUBE_RATE ?? "100000/100000").split("/").map(Number);
  const rate = { qps: qps ?? 100_000, burst: burst ?? 100_000 };
  // BENCH_WORKER_CONCURRENCY: the worker's passes at once (default 8, the bare client's).
  const concurrency = Number(process.env.BENCH_WORKER_CONCURRENCY ?? "8");
  const config = validateInstallationConfig(
    {
      kubernetes: {
        kubeconfig: cluster.kubeconfigs["occ-worker"],
        rateLimit: { worker: rate, api: rate },
      },
      worker: { concurrency },
    },
    "bench",
  );
  const configFile = join(dir, "config.yaml");
  await writeFile(
    configFile,
    `kubernetes:\n  kubeconfig: ${cluster.kubeconfigs["occ-worker"]}\n` +
      `  apiKubeconfig: ${cluster.kubeconfigs["occ-api"]}\n` +
      `  rateLimit: { worker: ${JSON.stringify(rate)}, api: ${JSON.stringify(rate)} }\n` +
      `worker:\n  concurrency: ${String(concurrency)}\n`,
  );
  const opened: Db[] = [];
  return {
    dir,
    cluster,
    postgres,
    databaseUrl,
    db,
    config,
    configFile,
    async database(name) {
      const admin = new pg.Client({ connectionString: postgres.adminUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = postgres.adminUrl.replace(/\/postgres$/, `/${name}`);
      const fresh = openPostgres(url, { max: 10 });
      opened.push(fresh);
      await migrate(fresh);
      return { url, db: fresh };
    },
    async stop() {
      for (const d of opened) await d.close();
      await db.close();
      await cluster.stop();
      await postgres.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? Number.NaN;
}
