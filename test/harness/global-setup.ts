import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startLocalCluster } from "../../src/devcluster/local-cluster.js";
import { installAdmissionPolicies } from "../../src/devcluster/admission.js";
import { chartAdmissionPolicies } from "./admission.js";
import { startTestPostgres, useExternalPostgres } from "./postgres.js";
import type { TestEnvironment } from "./environment.js";

/**
 * Starts one real cluster and one real PostgreSQL for the whole integration run, and hands
 * their coordinates to the tests through `inject("env")`. Any failure to start throws, which
 * fails the run: integration tests never skip for want of a server.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "occ-test-"));
  // Traversable (not listable) so that PostgreSQL, running as its own user, reaches its folder.
  await chmod(dir, 0o711);
  const started = Date.now();
  const external = process.env.OCC_TEST_DATABASE_URL;
  const [clusterResult, pgResult] = await Promise.allSettled([
    // API Priority and Fairness on, as in every real cluster (the dev cluster and the bench
    // turn it off): the chart's FlowSchema is proven on it (test/integration/helm/flow-control).
    startLocalCluster({
      dir: join(dir, "cluster"),
      apiServerArgs: ["--enable-priority-and-fairness=true"],
    }),
    external !== undefined && external !== ""
      ? useExternalPostgres(external)
      : startTestPostgres(join(dir, "postgres")),
  ]);
  if (clusterResult.status === "rejected" || pgResult.status === "rejected") {
    // Whatever did start is stopped again, so a failed setup leaves no process behind.
    if (clusterResult.status === "fulfilled") await clusterResult.value.stop();
    if (pgResult.status === "fulfilled") await pgResult.value.stop();
    const reasons = [clusterResult, pgResult]
      .filter((r): r is PromiseRejectedResult => r.status === "rejected")
      .map((r) => (r.reason instanceof Error ? r.reason.message : String(r.reason)));
    throw new Error(
      `integration environment did not start (logs in ${dir}):\n${reasons.join("\n")}`,
    );
  }
  const cluster = clusterResult.value;
  const pg = pgResult.value;
  try {
    // The chart's admission policies hold for the whole run: every test that acts as occ-worker
    // or occ-api does so under them, as the chart's worker and API do.
    await installAdmissionPolicies(
      {
        server: cluster.server,
        caPem: cluster.caPem,
        adminToken: cluster.tokens.admin,
        adminKubeconfig: cluster.kubeconfigs.admin,
      },
      await chartAdmissionPolicies(),
      "occ-worker",
    );
  } catch (err) {
    await cluster.stop();
    await pg.stop();
    throw err;
  }
  console.log(
    `[harness] cluster ${cluster.server} and PostgreSQL ready in ${Date.now() - started} ms (${dir})`,
  );
  const env: TestEnvironment = {
    server: cluster.server,
    caPem: cluster.caPem,
    kubeconfigs: cluster.kubeconfigs,
    tokens: cluster.tokens,
    servingCertFile: join(dir, "cluster", "pki", "apiserver", "apiserver.crt"),
    servingKeyFile: join(dir, "cluster", "pki", "apiserver", "apiserver.key"),
    databaseUrl: pg.adminUrl,
    runDir: dir,
  };
  project.provide("env", env);
  return async () => {
    await cluster.stop();
    await pg.stop();
    if (process.env.OCC_KEEP_TEST_DIR === undefined)
      await rm(dir, { recursive: true, force: true });
  };
}
