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
    ],
  },
});
