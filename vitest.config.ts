import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          sequence: { groupOrder: 0 },
          include: ["test/unit/**/*.test.ts"],
          testTimeout: 30_000,
          // Setting up PGlite (migrations, bootstrap) takes seconds; on 2 busy cores, more.
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "integration",
          sequence: { groupOrder: 1 },
          include: ["test/integration/**/*.test.ts"],
          globalSetup: ["test/harness/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
      {
        // R5 (test/model, docs/reliability.md): one stack of its own — cluster, PostgreSQL,
        // two API and two worker processes — since its faults restart the servers.
        // `npm run test:model -- --runs N | --seed S [--path P]` sets the count or replays.
        test: {
          name: "model",
          // After the integration project, so the two clusters never compete for the CPU.
          sequence: { groupOrder: 2 },
          include: ["test/model/**/*.model.test.ts"],
          // An hour, or 30 s a sequence for a long run (`--runs 2000` on one stack is ~3 h).
          testTimeout: Math.max(3_600_000, (Number(process.env.OCC_MODEL_RUNS) || 0) * 30_000),
          hookTimeout: 300_000,
        },
      },
      {
        // A real node (containerd, kubelet, kube-proxy, CNI bridge) running the image built by
        // `npm run image`, inside a network namespace of the run: run through
        // `npm run test:deployed` (tools/test-deployed.sh), which creates and removes it.
        test: {
          name: "deployed",
          sequence: { groupOrder: 2 },
          include: ["test/deployed/**/*.test.ts"],
          exclude: ["test/deployed/leftovers.test.ts"],
          globalSetup: ["test/harness/node/global-setup.ts"],
          testTimeout: 300_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        // Run by tools/test-deployed.sh on the host after the node's teardown.
        test: {
          name: "deployed-leftovers",
          sequence: { groupOrder: 3 },
          include: ["test/deployed/leftovers.test.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
