import { readFile } from "node:fs/promises";
import { runBootstrap } from "../src/main/processes.js";
import type { Db } from "../src/store/db.js";
import { bareProvisioning } from "./bare-provisioning.js";
import { startBenchEnvironment, type BenchEnvironment } from "./environment.js";
import { keepAliveClient } from "./keepalive-client.js";
import { cpuBetween, cpuByGroup } from "./process-cpu.js";
import { startOcc, type OccChild } from "./occ-process.js";
import { apiServerCounts } from "./p8-idle-cost.js";

/**
 * The V8 flag every `occ` child process of P1 and P6 runs with, stated in the results. The old
 * generation's limit decides how much garbage V8 lets accumulate before a full collection: left
 * to its default on this 24 GiB machine (about 4 GB) resident memory depends on GC timing, not
 * on what the process holds. In a pod V8 sizes its heap from the container's memory limit (the
 * chart's is 512 Mi); 128 MB is well inside that and far above what the processes keep live.
 */
export const HEAP_FLAG = "--max-old-space-size=128";

/** Resident memory of a process over a run (bytes). */
export interface MemorySamples {
  /** The median of the samples taken once the work was done. */
  readonly median: number;
  /** VmHWM: the highest resident size the process ever had. */
  readonly peak: number;
  readonly samples: number;
}

/** Kubernetes requests of one provisioning run, as the API server counted them. */
export interface ClusterCost {
  readonly ms: number;
  /** Non-WATCH requests on the kinds the worker reads or writes (namespaces, policies, …). */
  readonly requests: number;
  /** Of those, the writes. */
  readonly writes: number;
}

/** One point of the scaling curve: OCC and the bare client on a fresh cluster of their own. */
export interface ScalePoint {
  readonly tenants: number;
  readonly occ: ClusterCost;
  readonly bare: ClusterCost;
  readonly worker: MemorySamples;
  readonly api: MemorySamples;
  /** Work passes the worker ran (attempts) and how many of them ended pending. */
  readonly attempts: number;
  readonly pendings: number;
  /** `/proc/loadavg`'s 1/5/15-minute load when the OCC run started (a shared machine). */
  readonly load: string;
}

/** The 1/5/15-minute load averages, as `uptime` prints them. */
export async function loadAverage(): Promise<string> {
  const text = await readFile("/proc/loadavg", "utf8");
  return text.split(" ").slice(0, 3).join(" / ");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Samples a process's VmRSS every `everyMs` until stopped. */
function sampler(child: OccChild, everyMs: number) {
  const values: number[] = [];
  const timer = setInterval(() => {
    child.memory().then(
      (m) => values.push(m.rss),
      () => undefined,
    );
  }, everyMs);
  return {
    /** Starts over: only what is sampled from now on counts. */
    reset: () => values.splice(0),
    async stop(): Promise<MemorySamples> {
      clearInterval(timer);
      const sorted = [...values].sort((a, b) => a - b);
      const { peak } = await child.memory();
      return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, peak, samples: values.length };
    },
  };
}

/**
 * P1 and P6 at one size: a fresh cluster and PostgreSQL (so no earlier measurement's
 * namespaces sit in the worker's watch caches), the compiled `occ api` and `occ worker` as
 * separate processes (as the image runs them, with {@link HEAP_FLAG}), `tenants` managed
 * Namespaces created through the API by `concurrency` clients until all are ready; then the
 * bare client making the same Kubernetes writes with the same concurrency. Worker and API
 * memory are sampled every 250 ms; the median is over the 5 s after all were ready (the API
 * having listed every Namespace once), the peak is the process's VmHWM.
 */
export async function measureScalePoint(opts: {
  occ: string;
  tenants: number;
  concurrency: number;
  log: (line: string) => void;
}): Promise<ScalePoint> {
  const env = await startBenchEnvironment();
  try {
    const { url, db } = await env.database("occ_scale");
    const key = (await runBootstrap(db, env.config)).apiKey ?? "";
    const common = ["--database-url", url, "--config", env.configFile];
    // BENCH_P1_CPU_PROF=<dir>: `--cpu-prof` profiles of the API and the worker over the point.
    const profile = process.env.BENCH_P1_CPU_PROF;
    const flags =
      profile === undefined ? [HEAP_FLAG] : [HEAP_FLAG, "--cpu-prof", `--cpu-prof-dir=${profile}`];
    const api = await startOcc(
      opts.occ,
      ["api", ...common, "--port", "0"],
      /listening on (http:\/\/\S+)/,
      flags,
    );
    let point: ScalePoint;
    try {
      const worker = await startOcc(
        opts.occ,
        ["worker", ...common, "--metrics-port", "0"],
        /"watch caches synced"/,
        flags,
      );
      try {
        point = await run(env, db, api, worker, key, opts);
      } finally {
        await worker.stop();
      }
    } finally {
      await api.stop();
    }
    return point;
  } finally {
    await env.stop();
  }
}

async function run(
  env: BenchEnvironment,
  db: Db,
  api: OccChild,
  worker: OccChild,
  key: string,
  opts: { tenants: number; concurrency: number; log: (line: string) => void },
): Promise<ScalePoint> {
  const workerMemory = sampler(worker, 250);
  const apiMemory = sampler(api, 250);
  opts.log(`scale ${opts.tenants}: Namespaces through the compiled occ api + occ worker`);
  const load = await loadAverage();
  const before = await apiServerCounts(env);
  // P5's lean keep-alive client (keepalive-client.ts): on these 2 shared cores every CPU second
  // the load generator spends is taken from the API, the worker and the cluster it measures,
  // while the bare client's side of the ratio has no load generator at all.
  const client = keepAliveClient(api.announced, key, opts.concurrency);
  const named = new Map([
    [api.pid, "occ api"],
    [worker.pid, "occ worker"],
  ]);
  const cpuBefore = await cpuByGroup(named);
  const startWall = Date.now();
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (next < opts.tenants) {
          const i = next++;
          await client.post(`s-${i}`);
        }
      }),
    );
  } finally {
    client.close();
  }
  // When the last one became ready, as its row records it (`last_reconciled_at`, stamped in
  // the settle transaction), polled four times a second: polling `count(*)` every 20 ms cost
  // PostgreSQL about 0.5 s of CPU at 1,000 (pg_stat_statements, 2026-12-03), inside OCC's
  // window on the same 2 cores.
  let ms: number;
  for (;;) {
    const res = await db.query<{ n: string; last: string | null }>(
      `SELECT count(*) AS n, extract(epoch FROM max(last_reconciled_at)) * 1000 AS last
       FROM namespaces WHERE status = 'ready' AND name LIKE 's-%'`,
    );
    const row = res.rows[0];
    if (Number(row?.n) === opts.tenants && row?.last != null) {
      ms = Number(row.last) - startWall;
      break;
    }
    await sleep(250);
  }
  const occCpu = cpuBetween(cpuBefore, await cpuByGroup(named));
  const passes = await db.query<{ attempts: string; pendings: string }>(
    "SELECT sum(attempt_count) AS attempts, sum(pending_count) AS pendings FROM work_items",
  );
  await listAll(api, key, opts.tenants);
  workerMemory.reset();
  apiMemory.reset();
  await sleep(5_000);
  const [workerRss, apiRss] = [await workerMemory.stop(), await apiMemory.stop()];
  // After the settle: the worker's READY Events are written after its database commit.
  const after = await apiServerCounts(env);
  opts.log(
    `scale ${opts.tenants}: OCC ${(ms / 1000).toFixed(2)} s; worker RSS median ` +
      `${(workerRss.median / 1e6).toFixed(0)} MB (peak ${(workerRss.peak / 1e6).toFixed(0)} MB)`,
  );
  // The bare client runs alone: a running worker would watch its writes (and look their
  // tenants up in PostgreSQL), taking CPU from the bare side's window on the same 2 cores.
  await worker.stop();
  await api.stop();
  opts.log(`scale ${opts.tenants}: the same writes from the bare client`);
  const bareBefore = await apiServerCounts(env);
  const bareCpuBefore = await cpuByGroup(named);
  const bareMs = await bareProvisioning(env, opts.tenants, opts.concurrency);
  const bareCpu = cpuBetween(bareCpuBefore, await cpuByGroup(named));
  const bareAfter = await apiServerCounts(env);
  opts.log(`scale ${opts.tenants}: bare ${(bareMs / 1000).toFixed(2)} s`);
  // CPU seconds by process in each window (bench = the load generator, or the bare client).
  const perNs = (total: number) => ((1000 * total) / opts.tenants).toFixed(1);
  opts.log(
    `scale ${opts.tenants}: CPU s, OCC window: ${occCpu.text} (total ${occCpu.total.toFixed(2)} s, ${perNs(occCpu.total)} ms / Namespace)`,
  );
  opts.log(
    `scale ${opts.tenants}: CPU s, bare window: ${bareCpu.text} (total ${bareCpu.total.toFixed(2)} s, ${perNs(bareCpu.total)} ms / Namespace); OCC / bare CPU ${(occCpu.total / bareCpu.total).toFixed(2)}`,
  );
  opts.log(
    `scale ${opts.tenants}: OCC window, requests by resource: ${countsBetween(before, after)}`,
  );
  opts.log(
    `scale ${opts.tenants}: bare window, requests by resource: ${countsBetween(bareBefore, bareAfter)}`,
  );
  return {
    tenants: opts.tenants,
    occ: {
      ms,
      requests: after.workerKinds - before.workerKinds,
      writes: after.workerWrites - before.workerWrites,
    },
    bare: {
      ms: bareMs,
      requests: bareAfter.workerKinds - bareBefore.workerKinds,
      writes: bareAfter.workerWrites - bareBefore.workerWrites,
    },
    worker: workerRss,
    api: apiRss,
    attempts: Number(passes.rows[0]?.attempts),
    pendings: Number(passes.rows[0]?.pendings),
    load,
  };
}

/** What kube-apiserver counted between two scrapes, `resource VERB: n`, largest first. */
function countsBetween(
  from: Awaited<ReturnType<typeof apiServerCounts>>,
  to: Awaited<ReturnType<typeof apiServerCounts>>,
): string {
  return Object.entries(to.byResource)
    .map(([k, n]) => [k, n - (from.byResource[k] ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .sort((x, y) => y[1] - x[1])
    .map(([k, n]) => `${k}: ${n}`)
    .join(", ");
}

/** Pages through every Namespace once (1,000 a page), as an operator's listing would. */
export async function listAll(api: OccChild, key: string, atLeast: number): Promise<void> {
  let listed = 0;
  for (let cursor: string | null = null; ;) {
    const page = await fetch(
      `${api.announced}/namespaces?limit=1000${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      { headers: { authorization: `Bearer ${key}` } },
    );
    if (page.status !== 200) throw new Error(`list: ${page.status} ${await page.text()}`);
    const body = (await page.json()) as { data: unknown[]; meta: { nextCursor: string | null } };
    listed += body.data.length;
    cursor = body.meta.nextCursor;
    if (cursor === null) break;
  }
  if (listed < atLeast) throw new Error(`the API listed ${listed} Namespaces`);
}
