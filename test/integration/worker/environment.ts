/**
 * What the worker's integration tests share: a migrated, bootstrapped database of their own, the
 * chart's cluster roles, and the worker's compute runtime on the `occ-worker` kubeconfig.
 * Call once at the top of a test file; the hooks it registers create and remove everything.
 */
import { afterAll, beforeAll, inject } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { createComputeRuntime, type ComputeRuntime } from "../../../src/main/compute.js";
import { runBootstrap } from "../../../src/main/processes.js";
import { migrate } from "../../../src/store/migrate.js";
import { namespaceQueueConfig } from "../../../src/work/namespace-work.js";
import type { WorkQueuePolicy } from "../../../src/queue/policy.js";
import { workQueuePolicy } from "../../../src/work/queues.js";
import { createTestDatabase } from "../../harness/db.js";
import { grantChartClusterRoles } from "../../harness/rbac.js";

type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;
type Bootstrap = Awaited<ReturnType<typeof runBootstrap>>;

export interface WorkerTestEnvironment {
  readonly config: ReturnType<typeof validateInstallationConfig>;
  readonly db: TestDatabase["db"];
  readonly compute: ComputeRuntime;
  readonly boot: Bootstrap;
  /** The Namespace service's dependencies, as the API process builds them. */
  serviceDeps(policy?: Partial<WorkQueuePolicy>): ReturnType<typeof namespaceServiceDeps>;
}

export function workerTestEnvironment(): WorkerTestEnvironment {
  const config = validateInstallationConfig(
    { kubernetes: { kubeconfig: inject("env").kubeconfigs["occ-worker"] } },
    "test",
  );
  let t: TestDatabase | undefined;
  let compute: ComputeRuntime | undefined;
  let boot: Bootstrap | undefined;
  beforeAll(async () => {
    await grantChartClusterRoles();
    t = await createTestDatabase();
    await migrate(t.db);
    boot = await runBootstrap(t.db, config);
    compute = await createComputeRuntime(config);
  });
  afterAll(async () => {
    compute?.close();
    await t?.drop();
  });
  const ready = <V>(value: V | undefined): V => {
    if (value === undefined) throw new Error("workerTestEnvironment: used before beforeAll ran");
    return value;
  };
  return {
    config,
    get db() {
      return ready(t).db;
    },
    get compute() {
      return ready(compute);
    },
    get boot() {
      return ready(boot);
    },
    serviceDeps(policy = {}) {
      return namespaceServiceDeps(ready(t).db, { ...workQueuePolicy(config), ...policy });
    },
  };
}

function namespaceServiceDeps(db: TestDatabase["db"], policy: WorkQueuePolicy) {
  return {
    db,
    queue: namespaceQueueConfig({ policy }),
    compute: { source: "bundled", name: "kubernetes" } as const,
    controllerNamespace: "openclaw-system",
    contentChecks: [],
  };
}
