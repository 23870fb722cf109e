import type { NamespaceId } from "../src/domain/placement/ids.js";
import { requestNamespacePass } from "../src/work/namespace-pass-request.js";
import { namespaceWorkQueue } from "../src/work/queues.js";
import type { BenchEnvironment } from "./environment.js";
import { measureDriftRepair, startWatchedTenants } from "./p7-drift-repair.js";
import { measureIdleCost } from "./p8-idle-cost.js";
import { POD_HEAP } from "./provisioning.js";

const P7_TENANTS = Number(process.env.BENCH_P7_TENANTS ?? 2000);
const P7_DELETES = Number(process.env.BENCH_P7_DELETES ?? 50);
const P7_SPACING_MS = Number(process.env.BENCH_P7_SPACING_MS ?? 200);
const P8_SECONDS = Number(process.env.BENCH_P8_SECONDS ?? 600);

type Row = [string, string, string, string];

const log = (line: string) => {
  console.error(`[bench] ${line}`);
};

/**
 * P7 and P8 on one population of ready tenants run by compiled `occ api` / `occ worker`
 * processes (watches on), and the worker's resident memory afterwards (P6 with the caches).
 */
export async function driftAndIdleRows(env: BenchEnvironment, occ: string): Promise<Row[]> {
  const tenants = await startWatchedTenants(env, {
    occ,
    tenants: P7_TENANTS,
    concurrency: 8,
    workerConfig: "",
    // As P1, P6 and P9: the heap V8 gives a pod of the chart's limit (provisioning.ts).
    nodeArgs: POD_HEAP,
    log,
  });
  const rows: Row[] = [];
  try {
    log(`P7/P8: ${tenants.ids.length} tenants ready after ${tenants.readySeconds.toFixed(0)} s`);
    const p7 = await measureDriftRepair(env, tenants, {
      count: P7_DELETES,
      spacingMs: P7_SPACING_MS,
      log,
    });
    rows.push([
      `P7 drift repair: ${tenants.ids.length} ready tenants, default-deny deleted in ${p7.deleted} random tenants (one every ${P7_SPACING_MS} ms); delete → restored (${p7.restored} restored)`,
      `p50 ${p7.p50Ms.toFixed(0)} ms, p99 ${p7.p99Ms.toFixed(0)} ms (max ${p7.maxMs.toFixed(0)} ms)`,
      "p50 ≤ 1 s, p99 ≤ 5 s",
      p7.p50Ms <= 1_000 && p7.p99Ms <= 5_000 && p7.restored === p7.deleted ? "pass" : "FAIL",
    ]);
    // Let P7's repairs and the passes their own writes triggered settle before counting.
    await new Promise((r) => setTimeout(r, 15_000));
    const queue = namespaceWorkQueue(env.config);
    const p8 = await measureIdleCost(env, tenants, {
      seconds: P8_SECONDS,
      log,
      forceResync: async () => {
        const started = new Date();
        for (const id of tenants.ids) {
          await requestNamespacePass(tenants.db, queue, id as NamespaceId, "resync");
        }
        // Wait until every one of those passes ran (no reconcile item left queued or claimed).
        for (const until = Date.now() + 5 * 60_000; Date.now() < until;) {
          const open = await tenants.db.query<{ n: string }>(
            `SELECT count(*) AS n FROM work_items
              WHERE kind = 'namespace.ensure' AND state IN ('queued', 'claimed')`,
          );
          if (Number(open.rows[0]?.n) === 0) break;
          await new Promise((r) => setTimeout(r, 500));
        }
        const ran = await tenants.db.query<{ n: string }>(
          "SELECT count(*) AS n FROM work_items WHERE kind = 'namespace.ensure' AND finished_at >= $1",
          [started],
        );
        return Number(ran.rows[0]?.n);
      },
    });
    rows.push([
      `P8 idle cost: ${tenants.ids.length} ready tenants, ${p8.seconds.toFixed(0)} s without change including one forced full resync (${p8.resyncPasses} passes); kube-apiserver's apiserver_request_total, WATCH excluded, on the kinds the worker reads or writes (namespaces, networkpolicies, resourcequotas, limitranges, rolebindings, events)`,
      `${p8.workerKindsPerSecond.toFixed(3)} requests/s, ${p8.workerWrites} writes (worker's own count: ${p8.workerClientRequests} requests)`,
      "≤ 0.1 requests/s, 0 writes",
      p8.workerKindsPerSecond <= 0.1 && p8.workerWrites === 0 ? "pass" : "FAIL",
    ]);
    rows.push([
      "(not the bar) P8 window, every resource: what else kube-apiserver counted (no worker in it: its own identity lease, the controller manager)",
      `${p8.nonWatchPerSecond.toFixed(3)} requests/s, ${p8.writes} writes: ${p8.others === "" ? "none" : p8.others}`,
      "",
      "",
    ]);
    const memory = await tenants.worker.memory();
    rows.push([
      `P6 occ worker (compiled) resident memory with its watch caches, ${tenants.ids.length} ready tenants, after P7 and P8`,
      `${(memory.rss / 1e6).toFixed(0)} MB (peak ${(memory.peak / 1e6).toFixed(0)} MB)`,
      "≤ 200 MB",
      memory.rss / 1e6 <= 200 ? "pass" : "FAIL",
    ]);
  } finally {
    await tenants.stop();
  }
  return rows;
}
