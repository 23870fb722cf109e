import { chmod, mkdtemp, rm } from "node:fs/promises";
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
  readonly cluster: LocalCluster;
  readonly postgres: TestPostgres;
  readonly databaseUrl: string;
  readonly db: Db;
  readonly config: InstallationConfig;
  stop(): Promise<void>;
}

export async function startBenchEnvironment(): Promise<BenchEnvironment> {
  const dir = await mkdtemp(join(tmpdir(), "occ-bench-"));
  await chmod(dir, 0o711); // PostgreSQL runs as its own user and must reach its folder

  const cluster = await startLocalCluster({ dir: join(dir, "cluster") });
  // A failed PostgreSQL start must not leave the cluster running behind it.
  const postgres = await startTestPostgres(join(dir, "postgres")).catch(async (err: unknown) => {
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
  const config = validateInstallationConfig(
    { kubernetes: { kubeconfig: cluster.kubeconfigs["occ-worker"] }, worker: { concurrency: 8 } },
    "bench",
  );
  return {
    cluster,
    postgres,
    databaseUrl,
    db,
    config,
    async stop() {
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
