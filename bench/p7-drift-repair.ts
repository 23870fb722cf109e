import { performance } from "node:perf_hooks";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { currentManagedName } from "../src/domain/index.js";
import {
  RequestCounter,
  createObjectClient,
  loadKubeConfig,
} from "../src/drivers/kubernetes/client/index.js";
import { KubeTransport } from "../src/drivers/kubernetes/client/transport.js";
import { Reflector } from "../src/drivers/kubernetes/watch/reflector.js";
import { runBootstrap } from "../src/main/processes.js";
import type { Db } from "../src/store/db.js";
import { percentile, type BenchEnvironment } from "./environment.js";
import { postNamespace, startOcc, type OccChild } from "./occ-process.js";

/** 2,000 (or `tenants`) ready managed Namespaces run by compiled `occ api` and `occ worker`. */
export interface WatchedTenants {
  readonly db: Db;
  /** The administrator's API key. */
  readonly key: string;
  readonly ids: readonly string[];
  readonly api: OccChild;
  readonly worker: OccChild;
  /** The worker's `/metrics` URL. */
  readonly workerMetrics: string;
  readonly readySeconds: number;
  stop(): Promise<void>;
}

/**
 * Creates `tenants` Namespaces through a compiled `occ api` child process and waits until the
 * compiled `occ worker` child process (watches on, `worker.*` from `workerConfig`) has them
 * all ready. P7 and P8 share this population.
 */
export async function startWatchedTenants(
  env: BenchEnvironment,
  opts: {
    occ: string;
    tenants: number;
    concurrency: number;
    /** Extra lines under `worker:` of the Installation configuration. */
    workerConfig: string;
    /** Node.js flags of both processes (P9: the heap limit P6 runs with). */
    nodeArgs?: readonly string[];
    /** More Node.js flags of the worker process (diagnostics, e.g. `--heapsnapshot-signal`). */
    workerNodeArgs?: readonly string[];
    /** Run once both processes are up, before the tenants are created (P9: P4's small case). */
    beforeProvisioning?: (api: OccChild, key: string, db: Db) => Promise<void>;
    log: (line: string) => void;
  },
): Promise<WatchedTenants> {
  const { url, db } = await env.database("occ_p7");
  const key = (await runBootstrap(db, env.config)).apiKey ?? "";
  const config = join(env.dir, "p7-config.yaml");
  await writeFile(
    config,
    `kubernetes:\n  kubeconfig: ${env.cluster.kubeconfigs["occ-worker"]}\n` +
      `  apiKubeconfig: ${env.cluster.kubeconfigs["occ-api"]}\n` +
      `  rateLimit: ${JSON.stringify(env.config.kubernetes.rateLimit)}\n` +
      `worker:\n  concurrency: ${opts.concurrency}\n${opts.workerConfig}`,
  );
  const common = ["--database-url", url, "--config", config];
  const api = await startOcc(opts.occ, ["api", ...common, "--port", "0"], /listening on (\S+)/, {
    logFile: join(env.dir, "p7-api.log"),
    nodeArgs: opts.nodeArgs ?? [],
  });
  const worker = await startOcc(
    opts.occ,
    ["worker", ...common, "--metrics-port", "0"],
    /"metrics":"(http:\/\/[^"]+\/metrics)"/,
    {
      logFile: join(env.dir, "p7-worker.log"),
      nodeArgs: [...(opts.nodeArgs ?? []), ...(opts.workerNodeArgs ?? [])],
    },
  ).catch(async (err: unknown) => {
    await api.stop();
    throw err;
  });
  await opts.beforeProvisioning?.(api, key, db).catch(async (err: unknown) => {
    await worker.stop();
    await api.stop();
    throw err;
  });
  const start = performance.now();
  opts.log(`P7/P8: ${opts.tenants} Namespaces through occ api, provisioned by occ worker`);
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next < opts.tenants) {
        const i = next++;
        ids.push(await postNamespace(api.announced, key, `p7-${i}`));
      }
    }),
  );
  for (;;) {
    const res = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM namespaces WHERE status = 'ready' AND name LIKE 'p7-%'",
    );
    if (Number(res.rows[0]?.n) === opts.tenants) break;
    if (performance.now() - start > 30 * 60_000) throw new Error("P7: tenants not ready in 30 min");
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    db,
    key,
    ids,
    api,
    worker,
    workerMetrics: worker.announced,
    readySeconds: (performance.now() - start) / 1_000,
    async stop() {
      await worker.stop();
      await api.stop();
    },
  };
}

export interface DriftRepairResult {
  readonly deleted: number;
  readonly restored: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/**
 * P7: deletes the owned `default-deny` NetworkPolicy of `count` random tenants, one every
 * `spacingMs`, each with its UID as precondition, and times delete → the policy exists again.
 * "Exists again" is observed by a watch of the bench's own (an admin reflector over
 * NetworkPolicies): the moment the ADDED event for that namespace arrives.
 */
export async function measureDriftRepair(
  env: BenchEnvironment,
  tenants: WatchedTenants,
  opts: { count: number; spacingMs: number; log: (line: string) => void },
): Promise<DriftRepairResult> {
  const kc = loadKubeConfig(env.cluster.kubeconfigs.admin);
  const admin = createObjectClient(kc);
  const transport = new KubeTransport(kc, { counter: new RequestCounter() });
  const restoredAt = new Map<string, number>();
  const observer = new Reflector({
    transport,
    kind: "NetworkPolicy",
    onChange: (c) => {
      if (c.name === "default-deny" && c.current !== null && c.previous === null) {
        restoredAt.set(c.namespace, performance.now());
      }
    },
  });
  observer.start();
  try {
    if (!(await observer.waitForSync(60_000))) throw new Error("P7: observer did not sync");
    const chosen = [...tenants.ids].sort(() => Math.random() - 0.5).slice(0, opts.count);
    const deletedAt = new Map<string, number>();
    opts.log(`P7: deleting default-deny in ${chosen.length} random tenants`);
    for (const id of chosen) {
      const namespace = currentManagedName(id);
      const live = observer.store.get(namespace, "default-deny");
      if (live?.metadata.uid === undefined) throw new Error(`P7: ${namespace} has no default-deny`);
      restoredAt.delete(namespace);
      await admin.delete(
        "NetworkPolicy",
        { name: "default-deny", namespace },
        { uid: live.metadata.uid },
      );
      deletedAt.set(namespace, performance.now());
      await new Promise((r) => setTimeout(r, opts.spacingMs));
    }
    const deadline = performance.now() + 60_000;
    while (performance.now() < deadline && [...deletedAt.keys()].some((n) => !restoredAt.has(n))) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const latencies = [...deletedAt].flatMap(([n, at]) => {
      const back = restoredAt.get(n);
      return back === undefined ? [] : [back - at];
    });
    // A policy never restored within a minute counts as a minute: it fails p99 visibly.
    const missing = deletedAt.size - latencies.length;
    const all = [...latencies, ...Array.from({ length: missing }, () => 60_000)];
    return {
      deleted: deletedAt.size,
      restored: latencies.length,
      p50Ms: percentile(all, 50),
      p99Ms: percentile(all, 99),
      maxMs: Math.max(...all),
    };
  } finally {
    await observer.stop();
    transport.close();
    admin.close();
  }
}
