/**
 * What the worker's integration tests share: a migrated, bootstrapped database of their own, the
 * chart's cluster roles, and the worker's compute runtime on the `occ-worker` kubeconfig.
 * Call once at the top of a test file; the hooks it registers create and remove everything.
 */
import { afterAll, beforeAll, inject } from "vitest";
import type { NamespaceId } from "../../../src/domain/index.js";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { createWorkerRuntime, type WorkerRuntime } from "../../../src/drivers/runtime.js";
import { runBootstrap } from "../../../src/main/processes.js";
import type { Claim, WorkQueue } from "../../../src/queue/index.js";
import { createNamespace } from "../../../src/services/namespaces/create.js";
import { migrate } from "../../../src/store/migrate.js";
import type { NamespaceWorkKind } from "../../../src/work/namespace-work.js";
import type { WorkQueuePolicy } from "../../../src/queue/policy.js";
import { workQueuePolicy } from "../../../src/work/queues.js";
import { createTestDatabase } from "../../harness/db.js";
import { namespaceServiceDeps } from "../../harness/namespace-service.js";
import { grantChartClusterRoles } from "../../harness/rbac.js";

/** A queue policy whose pending backoff is 1 ms, so a test's passes follow each other. */
export const FAST = { pendingBackoff: { baseMs: 1, maxMs: 1, jitter: 0 } };

type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;
type Bootstrap = Awaited<ReturnType<typeof runBootstrap>>;

export interface WorkerTestEnvironment {
  readonly config: ReturnType<typeof validateInstallationConfig>;
  readonly db: TestDatabase["db"];
  readonly runtime: WorkerRuntime;
  readonly boot: Bootstrap;
  /** The Namespace service's dependencies, as the API process builds them. */
  serviceDeps(policy?: Partial<WorkQueuePolicy>): ReturnType<typeof namespaceServiceDeps>;
  /** A managed Namespace created through the service by the administrator, as the API does. */
  created(name: string): Promise<NamespaceId>;
  /**
   * Claims the Namespace's work item (of `kind`, when given) with `queue`, releasing any other
   * item it claims first; `attach` as the queue's claim takes it.
   */
  claimOf(
    queue: WorkQueue<NamespaceWorkKind>,
    id: NamespaceId,
    opts: { readonly owner: string; readonly attach?: string; readonly kind?: NamespaceWorkKind },
  ): Promise<Claim<NamespaceWorkKind>>;
}

export function workerTestEnvironment(): WorkerTestEnvironment {
  const config = validateInstallationConfig(
    { kubernetes: { kubeconfig: inject("env").kubeconfigs["occ-worker"] } },
    "test",
  );
  let t: TestDatabase | undefined;
  let compute: WorkerRuntime | undefined;
  let boot: Bootstrap | undefined;
  beforeAll(async () => {
    await grantChartClusterRoles();
    t = await createTestDatabase();
    await migrate(t.db);
    boot = await runBootstrap(t.db, config);
    compute = await createWorkerRuntime({ config });
  });
  afterAll(async () => {
    compute?.close();
    await t?.drop();
  });
  const ready = <V>(value: V | undefined): V => {
    if (value === undefined) throw new Error("workerTestEnvironment: used before beforeAll ran");
    return value;
  };
  const serviceDeps = (policy: Partial<WorkQueuePolicy> = {}) =>
    namespaceServiceDeps(ready(t).db, { ...workQueuePolicy(config), ...policy });
  return {
    config,
    get db() {
      return ready(t).db;
    },
    get runtime() {
      return ready(compute);
    },
    get boot() {
      return ready(boot);
    },
    serviceDeps,
    async created(name) {
      const principal = { principalId: ready(boot).administratorId };
      return (await createNamespace(serviceDeps(), principal, { name })).id;
    },
    async claimOf(queue, id, opts) {
      const db = ready(t).db;
      const { owner, attach, kind } = opts;
      for (let round = 0; round < 50; round += 1) {
        const claim = await queue.claim(db, { owner, ...(attach === undefined ? {} : { attach }) });
        const ours = claim?.item.subject === `namespace:${id}`;
        if (claim !== null && ours && (kind === undefined || claim.item.kind === kind)) {
          return claim;
        }
        if (claim !== null) await queue.release(db, claim.lease);
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no claimable work for ${id}`);
    },
  };
}
