import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * The integration run itself (not just the launcher) must fail — never skip — when the cluster
 * or PostgreSQL cannot start. Each case runs one real integration file in a child vitest.
 */
function integrationRun(env: Record<string, string>): { status: number | null; output: string } {
  const res = spawnSync(
    process.execPath,
    [
      "node_modules/vitest/vitest.mjs",
      "run",
      "--project",
      "integration",
      "test/integration/foundation/rbac.test.ts",
    ],
    { env: { ...process.env, ...env, FORCE_COLOR: "0" }, encoding: "utf8", timeout: 120_000 },
  );
  return { status: res.status, output: `${res.stdout}\n${res.stderr}` };
}

describe("an integration run without its servers", () => {
  it("fails with the missing cluster binaries named", () => {
    const run = integrationRun({ OCC_CLUSTER_BIN_DIR: "/nonexistent/occ-bin" });
    expect(run.status).not.toBe(0);
    expect(run.output).toContain("integration environment did not start");
    expect(run.output).toMatch(/etcd, kube-apiserver, kube-controller-manager not found/);
    expect(run.output).not.toMatch(/\d+ passed/);
  });

  it("fails when the given PostgreSQL is unreachable", () => {
    const run = integrationRun({
      OCC_TEST_DATABASE_URL: "postgres://postgres@127.0.0.1:1/postgres",
    });
    expect(run.status).not.toBe(0);
    expect(run.output).toContain(
      "OCC_TEST_DATABASE_URL is set but PostgreSQL there is unreachable",
    );
    expect(run.output).not.toMatch(/\d+ passed/);
  });
});
