import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startLocalCluster } from "../../src/devcluster/local-cluster.js";
import { startTestPostgres } from "./postgres.js";
import type { TestEnvironment } from "./environment.js";

/**
 * Starts one real cluster and one real PostgreSQL for the whole integration run, and hands
 * their coordinates to the tests through `inject("env")`. Any failure to start throws, which
 * fails the run: integration tests never skip for want of a server.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "occ-test-"));
  const started = Date.now();
  const cluster = await startLocalCluster({ dir: join(dir, "cluster") });
  const external = process.env.OCC_TEST_DATABASE_URL;
  const pg =
    external !== undefined && external !== ""
      ? { adminUrl: external, stop: () => Promise.resolve() }
      : await startTestPostgres(join(dir, "postgres"));
  console.log(
    `[harness] cluster ${cluster.server} and PostgreSQL ready in ${Date.now() - started} ms (${dir})`,
  );
  const env: TestEnvironment = {
    server: cluster.server,
    caPem: cluster.caPem,
    kubeconfigs: cluster.kubeconfigs,
    databaseUrl: pg.adminUrl,
    runDir: dir,
  };
  project.provide("env", env);
  return async () => {
    await cluster.stop();
    await pg.stop();
    if (process.env.OCC_KEEP_TEST_DIR === undefined) await rm(dir, { recursive: true, force: true });
  };
}
