/**
 * P9 (issue 39): 10,000 managed Namespaces (BENCH_P9_TENANTS) provisioned through a compiled
 * `occ api` by a compiled `occ worker` on a fresh cluster of their own, both with P6's heap
 * limit, then measured at that size: the provisioning's cost per Namespace (time,
 * kube-apiserver requests and writes), both processes' memory (the worker's split into V8's
 * heap and the rest, read from its /metrics), P4 (a Configuration read with 20 tenants, before
 * the 10,000, and after), the API's p50/p99 for a get, a page and a create while the worker
 * drains, P7 (drift repair in 50 random tenants), one forced full resync (duration, the part
 * spent queueing, requests, writes) inside P8's idle window. The cluster is torn down at the
 * end, not emptied (deleting 10,000 namespaces costs the namespace controller's grace for
 * each). P1 at this size (split cores) is `measureScalePoint` of bench/provisioning.ts, run by
 * bench/run.ts after this unless BENCH_P9_P1=0 (five more provisionings of 10,000).
 */
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { resyncNamespaces } from "../src/worker/resync.js";
import { namespaceWorkQueue } from "../src/work/queues.js";
import { percentile, startBenchEnvironment } from "./environment.js";
import { apiRequest, postNamespace } from "./occ-process.js";
import { createObjectClient, loadKubeConfig } from "../src/drivers/kubernetes/client/index.js";
import { measureDriftRepair, startWatchedTenants, type WatchedTenants } from "./p7-drift-repair.js";
import { apiServerCounts, measureIdleCost } from "./p8-idle-cost.js";
import {
  formatBreakdown,
  heapBreakdown,
  heapSnapshotFlags,
  takeHeapSnapshot,
} from "./process-heap.js";
import { configurationToRead, readP50 } from "./p4-config-reads.js";
import { loadAverage, POD_HEAP } from "./provisioning.js";

type Row = [string, string, string, string];

export interface TenThousandResult {
  readonly rows: Row[];
  /** The cost-per-Namespace row of the curve at this size. */
  readonly curveRow: string;
}

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const P4_SMALL = 20;
/** Uncounted requests before a latency is measured (as P4's reads): first-use costs aside. */
const WARM_UP = 20;
const P4_READS = num("BENCH_P4_READS", 200);

/** Ready Namespaces whose name is LIKE `pattern`. */
async function readyCount(db: WatchedTenants["db"], pattern: string): Promise<number> {
  const res = await db.query<{ n: string }>(
    "SELECT count(*) AS n FROM namespaces WHERE status = 'ready' AND name LIKE $1",
    [pattern],
  );
  return Number(res.rows[0]?.n);
}

/** p50 and p99 (ms) of `count` sequential calls of `call`, after `warmUp` uncounted ones. */
async function latencies(count: number, call: (i: number) => Promise<void>, warmUp = 0) {
  const ms: number[] = [];
  for (let i = 0; i < warmUp + count; i++) {
    const t = performance.now();
    await call(i);
    if (i >= warmUp) ms.push(performance.now() - t);
  }
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

const fmt = (l: { p50: number; p99: number }) =>
  `p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms`;

/** Every `namespace.ensure` item queued or claimed has finished (or 10 minutes passed). */
async function drained(tenants: WatchedTenants): Promise<void> {
  for (const until = Date.now() + 10 * 60_000; Date.now() < until;) {
    const open = await tenants.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM work_items
        WHERE kind = 'namespace.ensure' AND state IN ('queued', 'claimed')`,
    );
    if (Number(open.rows[0]?.n) === 0) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** BENCH_P9_LOGS=<dir>: the processes' logs are copied there before the cluster goes. */
async function keepLogs(dir: string, log: (line: string) => void): Promise<void> {
  const to = process.env.BENCH_P9_LOGS;
  if (to === undefined) return;
  await mkdir(to, { recursive: true });
  for (const name of ["p7-api.log", "p7-worker.log"]) {
    await copyFile(join(dir, name), join(to, name)).catch(() => undefined);
  }
  log(`P9: logs of occ api and occ worker kept in ${to}`);
}

export async function measureTenThousand(opts: {
  occ: string;
  log: (line: string) => void;
}): Promise<TenThousandResult> {
  const size = num("BENCH_P9_TENANTS", 10_000);
  const env = await startBenchEnvironment();
  const admin = createObjectClient(loadKubeConfig(env.cluster.kubeconfigs.admin));
  const rows: Row[] = [];
  // Each row is also logged as soon as it is measured: a later failure loses none of them.
  const emit = (row: Row) => {
    rows.push(row);
    opts.log(`P9 row: ${row.join(" | ")}`);
  };
  try {
    const load = await loadAverage();
    // BENCH_P9_HEAP_SNAPSHOT=<dir>: a heap snapshot of the worker after provisioning, there.
    const snapshots = process.env.BENCH_P9_HEAP_SNAPSHOT;
    if (snapshots !== undefined) await mkdir(snapshots, { recursive: true });
    const p4 = { url: "", small: 0 };
    const before = await apiServerCounts(env);
    const tenants = await startWatchedTenants(env, {
      occ: opts.occ,
      tenants: size,
      concurrency: 8,
      workerConfig: "",
      // V8 sizes its heap from the pod's memory limit, not from this 24 GiB machine.
      nodeArgs: POD_HEAP,
      workerNodeArgs: snapshots === undefined ? [] : heapSnapshotFlags(snapshots),
      // P4's small case: 20 tenants, one of them with the Configuration read at both sizes.
      beforeProvisioning: async (api, key, db) => {
        p4.url = await configurationToRead(db, admin, api.announced, key);
        for (let i = 1; i < P4_SMALL; i++) await postNamespace(api.announced, key, `p4-${i}`);
        for (let waited = 0; (await readyCount(db, "p4-%")) < P4_SMALL - 1; waited += 250) {
          if (waited > 120_000) throw new Error("P9 P4: the 20 tenants not ready in 2 min");
          await new Promise((r) => setTimeout(r, 250));
        }
        p4.small = await readP50(p4.url, key, P4_READS);
      },
      log: opts.log,
    });
    try {
      const after = await apiServerCounts(env);
      const requests = after.workerKinds - before.workerKinds;
      const writes = after.workerWrites - before.workerWrites;
      // Let the API's and the worker's memory settle after the burst.
      await new Promise((r) => setTimeout(r, 5_000));
      const [api, worker] = [await tenants.api.memory(), await tenants.worker.memory()];
      const mb = (b: number) => (b / 1e6).toFixed(0);
      opts.log(`P9: ${size} ready in ${tenants.readySeconds.toFixed(0)} s`);
      const breakdown = async () =>
        formatBreakdown(await heapBreakdown(tenants.workerMetrics, tenants.worker.pid));
      opts.log(`P9: occ worker after provisioning: ${await breakdown()}`);
      if (snapshots !== undefined) {
        const file = await takeHeapSnapshot(tenants.worker.pid, snapshots);
        opts.log(`P9: worker heap snapshot ${file ?? "not written"} in ${snapshots}`);
      }
      emit([
        `P9 ${size} managed Namespaces through occ api until ready (compiled occ api + occ worker, \`${POD_HEAP.join(" ")}\`, 8 clients; load ${load})`,
        `${tenants.readySeconds.toFixed(1)} s: ${((tenants.readySeconds * 1000) / size).toFixed(2)} ms, ${(requests / size).toFixed(2)} requests, ${(writes / size).toFixed(2)} writes per Namespace`,
        "(cost per Namespace within 1.2× of 1,000's)",
        "",
      ]);
      emit([
        `P9 P6 resident memory with ${size} ready tenants (after provisioning; peak VmHWM)`,
        `occ api ${mb(api.rss)} MB (peak ${mb(api.peak)}), occ worker ${mb(worker.rss)} MB (peak ${mb(worker.peak)})`,
        "≤ 250 MB each",
        api.rss <= 250e6 && worker.rss <= 250e6 ? "pass" : "FAIL",
      ]);

      const url = tenants.api.announced;
      const get = await latencies(
        200,
        async (i) => {
          const id = tenants.ids[(i * 7919) % tenants.ids.length] ?? "";
          const res = await fetch(`${url}/namespaces/${id}`, apiRequest(tenants.key, "GET"));
          if (res.status !== 200) throw new Error(`GET /namespaces/${id}: ${res.status}`);
          await res.arrayBuffer();
        },
        WARM_UP,
      );
      let cursor: string | null = null;
      const page = await latencies(
        50,
        async () => {
          const q: string = cursor === null ? "" : `&cursor=${cursor}`;
          const res = await fetch(
            `${url}/namespaces?limit=100${q}`,
            apiRequest(tenants.key, "GET"),
          );
          if (res.status !== 200) throw new Error(`GET /namespaces: ${res.status}`);
          const body = (await res.json()) as { meta: { nextCursor: string | null } };
          cursor = body.meta.nextCursor;
        },
        WARM_UP,
      );
      // POST while the worker drains: the creates queue work the worker provisions meanwhile.
      const post = await latencies(200, async (i) => {
        await postNamespace(url, tenants.key, `p9-extra-${i}`);
      });
      await drained(tenants);
      emit([
        `P9 API latency with ${size} tenants: GET /namespaces/{id} (200 after ${WARM_UP} uncounted), GET /namespaces?limit=100 pages (50 after ${WARM_UP}), POST /namespaces while the worker drains (200)`,
        `get ${fmt(get)}; page ${fmt(page)}; post ${fmt(post)}`,
        "p99 ≤ 50 ms for a get and a page",
        get.p99 <= 50 && page.p99 <= 50 ? "pass" : "FAIL",
      ]);

      const p4Large = await readP50(p4.url, tenants.key, P4_READS);
      const p4Ratio = p4Large / p4.small;
      emit([
        `P9 P4 configuration read p50 (compiled occ api, ${P4_READS} reads): ${size + P4_SMALL} vs ${P4_SMALL} tenants`,
        `${p4Large.toFixed(2)} ms / ${p4.small.toFixed(2)} ms = ${p4Ratio.toFixed(2)}`,
        "≤ 1.5",
        p4Ratio <= 1.5 ? "pass" : "FAIL",
      ]);

      const p7 = await measureDriftRepair(env, tenants, {
        count: 50,
        spacingMs: 200,
        log: opts.log,
      });
      emit([
        `P9 P7 drift repair, ${size} ready tenants: default-deny deleted in ${p7.deleted} random tenants (${p7.restored} restored)`,
        `p50 ${p7.p50Ms.toFixed(0)} ms, p99 ${p7.p99Ms.toFixed(0)} ms`,
        "p50 ≤ 1 s, p99 ≤ 5 s",
        p7.p50Ms <= 1_000 && p7.p99Ms <= 5_000 && p7.restored === p7.deleted ? "pass" : "FAIL",
      ]);
      await new Promise((r) => setTimeout(r, 15_000));

      const queue = namespaceWorkQueue(env.config);
      let resync = { seconds: 0, queueSeconds: 0, requests: 0, writes: 0 };
      const p8 = await measureIdleCost(env, tenants, {
        seconds: num("BENCH_P9_P8_SECONDS", 600),
        log: opts.log,
        forceResync: async () => {
          const [t, c] = [performance.now(), await apiServerCounts(env)];
          // The worker's own resync (src/worker/resync.ts), then its passes drained.
          const covered = await resyncNamespaces(tenants.db, queue);
          const queued = performance.now();
          await drained(tenants);
          const done = await apiServerCounts(env);
          resync = {
            seconds: (performance.now() - t) / 1000,
            queueSeconds: (queued - t) / 1000,
            requests: done.workerKinds - c.workerKinds,
            writes: done.workerWrites - c.workerWrites,
          };
          return covered;
        },
      });
      emit([
        `P9 full resync of ${p8.resyncPasses} live Namespaces (a pass queued for each, until none is open); kube-apiserver's counts on the worker's kinds`,
        `${resync.seconds.toFixed(1)} s (queueing ${resync.queueSeconds.toFixed(1)} s), ${resync.requests} requests, ${resync.writes} writes`,
        "≤ 60 s, 0 writes",
        resync.seconds <= 60 && resync.writes === 0 ? "pass" : "FAIL",
      ]);
      emit([
        `P9 P8 idle cost, ${size} tenants, ${p8.seconds.toFixed(0)} s with the resync above`,
        `${p8.workerKindsPerSecond.toFixed(3)} requests/s, ${p8.workerWrites} writes (worker's own count: ${p8.workerClientRequests})`,
        "≤ 0.1 requests/s, 0 writes",
        p8.workerKindsPerSecond <= 0.1 && p8.workerWrites === 0 ? "pass" : "FAIL",
      ]);
      const [apiEnd, workerEnd] = [await tenants.api.memory(), await tenants.worker.memory()];
      opts.log(`P9: occ worker at the end: ${await breakdown()}`);
      emit([
        `P9 P6 resident memory after P7, the resync and P8 (peak VmHWM)`,
        `occ api ${mb(apiEnd.rss)} MB (peak ${mb(apiEnd.peak)}), occ worker ${mb(workerEnd.rss)} MB (peak ${mb(workerEnd.peak)})`,
        "≤ 250 MB each",
        apiEnd.rss <= 250e6 && workerEnd.rss <= 250e6 ? "pass" : "FAIL",
      ]);
      const curveRow = `| ${size} (P9) | ${((tenants.readySeconds * 1000) / size).toFixed(2)} (through the API, until ready) | — | — | ${(requests / size).toFixed(2)} | ${(writes / size).toFixed(2)} | — | ${mb(worker.rss)} MB (peak ${mb(worker.peak)}) | ${mb(api.rss)} MB (peak ${mb(api.peak)}) | ${load} | — |`;
      return { rows, curveRow };
    } finally {
      await keepLogs(env.dir, opts.log);
      await tenants.stop().catch((err: unknown) => {
        emit(["P9 stopping occ api and occ worker", String(err).slice(0, 300), "", "FAIL"]);
      });
    }
  } finally {
    // The whole cluster goes, not its 10,000 namespaces one by one.
    admin.close();
    await env.stop();
  }
}
