import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startLocalCluster } from "../../../src/devcluster/local-cluster.js";
import { logTail, startProcess, waitUntil } from "../../../src/devcluster/processes.js";

describe("the environment fails loudly", () => {
  it("refuses to start a cluster whose binaries are missing, naming them and the fix", async () => {
    const dir = await mkdtemp(join(tmpdir(), "occ-loud-"));
    try {
      await expect(startLocalCluster({ dir, binDir: join(dir, "nothing-here") })).rejects.toThrow(
        /etcd, kube-apiserver, kube-controller-manager not found .*build-cluster-tools\.sh/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reports a component that exits before it is ready, with its log", async () => {
    const dir = await mkdtemp(join(tmpdir(), "occ-loud-"));
    try {
      const p = startProcess("dies", "sh", ["-c", "echo 'bad flag --nope' >&2; exit 3"], dir);
      await expect(
        waitUntil("dies", () => Promise.resolve(false), {
          timeoutMs: 10_000,
          died: p.exited,
          describe: () => logTail(p),
        }),
      ).rejects.toThrow(/dies exited \(3\) before it was ready:\nbad flag --nope/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reports a component that never becomes ready within its deadline", async () => {
    await expect(
      waitUntil("slow", () => Promise.resolve(false), {
        timeoutMs: 300,
        describe: () => Promise.resolve("still starting"),
      }),
    ).rejects.toThrow(/slow was not ready within 300 ms:\nstill starting/);
  });
});
