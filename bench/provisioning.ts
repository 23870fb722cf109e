import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runBootstrap } from "../src/main/processes.js";
import type { Db } from "../src/store/db.js";
import { bareProvisioning, bareProvisioningWatched } from "./bare-provisioning.js";
import { startBenchEnvironment, type BenchEnvironment } from "./environment.js";
import { keepAliveClient } from "./keepalive-client.js";
import { PHASES, startPhases } from "./p1-phases.js";
import {
  cpuBetween,
  cpuByGroup,
  machineBetween,
  machineCpu,
  perApiServerSecond,
} from "./process-cpu.js";
import { startOcc, type OccChild } from "./occ-process.js";
import { startPerfRecord } from "./perf-record.js";
import { splitCoresPair, type SplitCores } from "./split-cores.js";
import { apiServerCounts } from "./p8-idle-cost.js";
import { sleep } from "../test/harness/time.js";

/**
 * The V8 flag every `occ` child process of P1 and P6 runs with, stated in the results. The old
 * generation's limit decides how much garbage V8 lets accumulate before a full collection: left
 * to its default on this 24 GiB machine (about 4 GB) resident memory depends on GC timing, not
 * on what the process holds. In a pod V8 sizes its heap from the container's memory limit (the
 * chart's is 512 Mi); 128 MB is well inside that and far above what the processes keep live.
 */
const HEAP_FLAG = "--max-old-space-size=128";

/**
 * The V8 flags of every `occ` child process of P1, P6 and P9: the processes as a pod sizes
 * them. {@link HEAP_FLAG} alone leaves Node.js 24's young generation sized for this 24 GiB
 * machine (64 MiB semi-spaces): the worker's resident memory was 192 MB at 200 tenants instead
 * of 139 MB, and at 1,000 it spent 20 of its 64 CPU seconds in the garbage collector (a
 * 30 s worker against 6.3 s on Node.js 20 and 9.4 s with this flag, 2026-12-05). Within the
 * chart's 512 Mi limit V8 derives both sizes from the limit (the young generation far below
 * 64 MiB); 16 MiB semi-spaces stay on the generous side of that.
 */
export const POD_HEAP = [HEAP_FLAG, "--max-semi-space-size=16"] as const;

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
  /** The bare client's same writes with the worker's watches open (context, not the bar). */
  readonly bareWatchedMs: number;
  /** The warm-up batch before each side's window (cold processes), not in the ratio. */
  readonly warmUp: { readonly tenants: number; readonly occMs: number; readonly bareMs: number };
  /** `/proc/loadavg`'s 1/5/15-minute load when the OCC run started (a shared machine). */
  readonly load: string;
  /** Each window's CPU (every process) per kube-apiserver CPU second (process-cpu.ts). */
  readonly cpuPerApiServerSecond: { readonly occ: number; readonly bare: number };
  /**
   * The pair again on separate cores (split-cores.ts), when asked for: the pair whose ratio is
   * the median of `runs` (each on a fresh cluster).
   */
  readonly split?: SplitCores & { readonly runs: readonly SplitCores[] };
}

/** The 1/5/15-minute load averages, as `uptime` prints them. */
export async function loadAverage(): Promise<string> {
  const text = await readFile("/proc/loadavg", "utf8");
  return text.split(" ").slice(0, 3).join(" / ");
}

/**
 * Namespaces each side provisions before its measured window, not counted (BENCH_P1_WARM_UP):
 * the window then compares a warm OCC (API and worker processes whose hot paths V8 has already
 * optimised, as in a running installation) with a warm bare client, instead of fresh `occ`
 * processes compiling their code inside the window.
 */
const warmUpCount = (): number => Number(process.env.BENCH_P1_WARM_UP ?? 300);

/** BENCH_P1_PG_STATS=1 (bench/environment.ts preloads the extension). */
const PG_STATS = process.env.BENCH_P1_PG_STATS === "1";

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
 * separate processes (as a pod runs them, with {@link POD_HEAP}), `tenants` managed
 * Namespaces created through the API by `concurrency` clients until all are ready; then the
 * bare client making the same Kubernetes writes with the same concurrency. Worker and API
 * memory are sampled every 250 ms; the median is over the 5 s after all were ready (the API
 * having listed every Namespace once), the peak is the process's VmHWM. With `splitCores`,
 * the pair again on separate cores (split-cores.ts: P1 as issue 39 defines it) on another fresh
 * cluster, OCC's processes stopped before the bare window — `splitRuns` times, each on a cluster
 * of its own, the median ratio's pair being the result (a window of 2–3 s at 200 moved by up
 * to ±10 % from one run to the next on this machine).
 */
export async function measureScalePoint(opts: {
  occ: string;
  tenants: number;
  concurrency: number;
  /** Also run the pair with the cluster and the client side on separate cores (split-cores.ts). */
  splitCores?: boolean;
  /** How many split pairs, each on a fresh cluster; the median ratio's pair is the result. */
  splitRuns?: number;
  log: (line: string) => void;
}): Promise<ScalePoint> {
  const point = await onFreshCluster(opts, (env, db, key, pair) =>
    run(env, db, pair.api, pair.worker, key, opts),
  );
  if (!opts.splitCores) return point;
  // On a cluster of its own too: after the bar's windows the cluster holds three times `tenants`
  // labelled namespaces (the bare client's look like OCC's), which a fresh worker would have to
  // cache (at 10,000: 30,000, beyond the pod's heap) and which OCC's window would write beside.
  const runs: SplitCores[] = [];
  for (let run = 0; run < Math.max(1, opts.splitRuns ?? 1); run += 1) {
    runs.push(await splitPair(opts));
  }
  const byRatio = [...runs].sort((a, b) => a.occMs / a.bareMs - b.occMs / b.bareMs);
  const median = byRatio[Math.floor((byRatio.length - 1) / 2)];
  if (median === undefined) throw new Error("split cores: no pair measured");
  return { ...point, split: { ...median, runs } };
}

/** One split pair on a fresh cluster (split-cores.ts). */
function splitPair(opts: {
  occ: string;
  tenants: number;
  concurrency: number;
  log: (line: string) => void;
}): Promise<SplitCores> {
  return onFreshCluster(opts, (env, db, key, { api, worker }, stopPair) =>
    splitCoresPair({
      clients: [api.pid, worker.pid],
      warmUp: () => throughOcc(api, db, key, "cw-", warmUpCount(), opts.concurrency),
      occ: () =>
        throughOcc(api, db, key, "c-", opts.tenants, opts.concurrency, {
          named: new Map([
            [api.pid, "occ api"],
            [worker.pid, "occ worker"],
          ]),
          log: (line) => {
            opts.log(`scale ${opts.tenants} (split): ${line}`);
          },
        }),
      stopOcc: stopPair,
      bare: () => bareProvisioning(env, opts.tenants, opts.concurrency),
      watched: (synced) => bareProvisioningWatched(env, opts.tenants, opts.concurrency, synced),
      log: (line) => {
        opts.log(`scale ${opts.tenants}: ${line}`);
      },
    }),
  );
}

interface OccPair {
  readonly api: OccChild;
  readonly worker: OccChild;
}

/**
 * A fresh cluster and PostgreSQL with a bootstrapped Installation and fresh compiled `occ api`
 * and `occ worker` processes ({@link POD_HEAP} and the diagnostics' flags); `body` may stop the
 * pair early (idempotent); everything is stopped after it.
 */
async function onFreshCluster<T>(
  opts: { occ: string; tenants: number },
  body: (
    env: BenchEnvironment,
    db: Db,
    key: string,
    pair: OccPair,
    stopPair: () => Promise<void>,
  ) => Promise<T>,
): Promise<T> {
  const env = await startBenchEnvironment();
  try {
    const { url, db } = await env.database("occ_scale");
    const key = (await runBootstrap(db, env.config)).apiKey ?? "";
    const common = ["--database-url", url, "--config", env.configFile];
    // BENCH_P1_CPU_PROF=<dir>: `--cpu-prof` profiles of the API and the worker over the point;
    // BENCH_P1_PERF_MAP=1: `--perf-basic-prof`, so that a system-wide `perf record` names
    // their JavaScript functions.
    const profile = process.env.BENCH_P1_CPU_PROF;
    const nodeArgs = [
      ...POD_HEAP,
      ...(process.env.BENCH_P1_NODE_FLAGS ?? "").split(" ").filter((f) => f !== ""),
      ...(process.env.BENCH_P1_PERF_MAP === "1" ? ["--perf-basic-prof"] : []),
      ...(profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profile}`]),
    ];
    const tag = `${opts.tenants}-${String(Date.now())}`;
    const log = (who: string) => join(env.dir, `scale-${tag}-${who}.log`);
    const api = await startOcc(
      opts.occ,
      ["api", ...common, "--port", "0"],
      /listening on (http:\/\/\S+)/,
      { nodeArgs, logFile: log("api") },
    );
    let worker: OccChild | undefined;
    let stopped: Promise<void> | undefined;
    const stopPair = () => {
      stopped ??= (async () => {
        await worker?.stop();
        await api.stop();
      })();
      return stopped;
    };
    try {
      worker = await startOcc(
        opts.occ,
        ["worker", ...common, "--metrics-port", "0"],
        /"watch caches synced"/,
        { nodeArgs, logFile: log("worker") },
      );
      return await body(env, db, key, { api, worker }, stopPair);
    } finally {
      await stopPair();
    }
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
  const named = new Map([
    [api.pid, "occ api"],
    [worker.pid, "occ worker"],
  ]);
  const warmUp = warmUpCount(); // read here: bench/run.ts sets it for --quick after imports
  opts.log(`scale ${opts.tenants}: warming up: ${warmUp} Namespaces through OCC, not counted`);
  const coldMs = await throughOcc(api, db, key, "w-", warmUp, opts.concurrency);
  opts.log(
    `scale ${opts.tenants}: warm-up ${(coldMs / 1000).toFixed(2)} s; Namespaces through the compiled occ api + occ worker`,
  );
  const passesBefore = await passCounts(db);
  const load = await loadAverage();
  const before = await apiServerCounts(env);
  if (PG_STATS) {
    await db.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await db.query("SELECT pg_stat_statements_reset()");
  }
  const machineBefore = await machineCpu();
  const cpuBefore = await cpuByGroup(named);
  const perf = await startPerfRecord(opts.tenants);
  const ms = await throughOcc(api, db, key, "s-", opts.tenants, opts.concurrency, {
    named,
    log: opts.log,
  });
  await perf?.stop();
  const occCpu = cpuBetween(cpuBefore, await cpuByGroup(named));
  const occMachine = machineBetween(machineBefore, await machineCpu(), occCpu.total);
  if (PG_STATS) await logStatementStats(db, opts.log);

  const passes = await passCounts(db);
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
  const bareColdMs = await bareProvisioning(env, warmUp, opts.concurrency);
  opts.log(`scale ${opts.tenants}: bare warm-up ${warmUp}: ${(bareColdMs / 1000).toFixed(2)} s`);
  const bareBefore = await apiServerCounts(env);
  const bareMachineBefore = await machineCpu();
  const bareCpuBefore = await cpuByGroup(named);
  const bareMs = await bareProvisioning(env, opts.tenants, opts.concurrency);
  const bareCpu = cpuBetween(bareCpuBefore, await cpuByGroup(named));
  const bareMachine = machineBetween(bareMachineBefore, await machineCpu(), bareCpu.total);
  const bareAfter = await apiServerCounts(env);
  opts.log(`scale ${opts.tenants}: bare ${(bareMs / 1000).toFixed(2)} s`);
  opts.log(`scale ${opts.tenants}: the same writes again, with the worker's watches open`);
  // Read once the caches are synced: their first list of every object is not the writes' cost.
  let watchedCpuBefore = await cpuByGroup(named);
  const watchedMs = await bareProvisioningWatched(env, opts.tenants, opts.concurrency, async () => {
    watchedCpuBefore = await cpuByGroup(named);
  });
  const watchedCpu = cpuBetween(watchedCpuBefore, await cpuByGroup(named));
  opts.log(
    `scale ${opts.tenants}: bare with watches ${(watchedMs / 1000).toFixed(2)} s; CPU s: ${watchedCpu.text} (total ${watchedCpu.total.toFixed(2)} s)`,
  );
  // CPU seconds by process in each window (bench = the load generator, or the bare client).
  const perNs = (total: number) => ((1000 * total) / opts.tenants).toFixed(1);
  opts.log(
    `scale ${opts.tenants}: CPU s, OCC window: ${occCpu.text} (total ${occCpu.total.toFixed(2)} s, ${perNs(occCpu.total)} ms / Namespace); ${occMachine}`,
  );
  opts.log(
    `scale ${opts.tenants}: CPU s, bare window: ${bareCpu.text} (total ${bareCpu.total.toFixed(2)} s, ${perNs(bareCpu.total)} ms / Namespace); OCC / bare CPU ${(occCpu.total / bareCpu.total).toFixed(2)}; ${bareMachine}`,
  );
  const [occNorm, bareNorm] = [perApiServerSecond(occCpu), perApiServerSecond(bareCpu)];
  opts.log(
    `scale ${opts.tenants}: CPU per kube-apiserver CPU second (the machine's speed cancels out): OCC ${occNorm.toFixed(2)}, bare ${bareNorm.toFixed(2)}; OCC / bare ${(occNorm / bareNorm).toFixed(2)}`,
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
    attempts: passes.attempts - passesBefore.attempts,
    pendings: passes.pendings - passesBefore.pendings,
    warmUp: { tenants: warmUp, occMs: coldMs, bareMs: bareColdMs },
    bareWatchedMs: watchedMs,
    load,
    cpuPerApiServerSecond: { occ: occNorm, bare: bareNorm },
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

/** The 30 costliest statements since the reset before the OCC window. */
async function logStatementStats(db: Db, log: (line: string) => void): Promise<void> {
  const res = await db.query<{
    calls: string;
    ms: string;
    plans: string;
    planMs: string;
    query: string;
  }>(
    `SELECT calls, round(total_exec_time::numeric, 1) AS ms, plans,
            round(total_plan_time::numeric, 1) AS "planMs",
            left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS query
     FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 30`,
  );
  for (const r of res.rows) {
    log(
      `pg_stat_statements: ${r.calls} calls, ${r.ms} ms; planned ${r.plans} times, ${r.planMs} ms: ${r.query}`,
    );
  }
}

/** Work passes run so far, and how many of them ended pending. */
async function passCounts(db: Db): Promise<{ attempts: number; pendings: number }> {
  const res = await db.query<{ attempts: string | null; pendings: string | null }>(
    "SELECT sum(attempt_count) AS attempts, sum(pending_count) AS pendings FROM work_items",
  );
  return {
    attempts: Number(res.rows[0]?.attempts ?? 0),
    pendings: Number(res.rows[0]?.pendings ?? 0),
  };
}

/**
 * `count` managed Namespaces named `<prefix><i>` through the API by `concurrency` clients on
 * P5's lean keep-alive connections (keepalive-client.ts: on these 2 shared cores every CPU
 * second the load generator spends is taken from the API, the worker and the cluster it
 * measures, while the bare client's side has no load generator at all); milliseconds from the
 * first request until the last of them was ready, as its row records it (`last_reconciled_at`,
 * stamped in the settle transaction), polled every 2 s while hundreds are left and four times a
 * second near the end (polling `count(*)` every 20 ms cost PostgreSQL about 0.5 s of CPU at
 * 1,000, inside OCC's window).
 */
async function throughOcc(
  api: OccChild,
  db: Db,
  key: string,
  prefix: string,
  count: number,
  concurrency: number,
  window?: { named: ReadonlyMap<number, string>; log: (line: string) => void },
): Promise<number> {
  const client = keepAliveClient(api.announced, key, concurrency);
  const startWall = Date.now();
  const phases =
    PHASES && window !== undefined ? await startPhases(window.named, startWall, window.log) : null;
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const i = next++;
          await client.post(`${prefix}${i}`);
        }
      }),
    );
  } finally {
    client.close();
  }
  await phases?.created();
  for (;;) {
    const res = await db.query<{ n: string; last: string | null }>(
      `SELECT count(*) AS n, extract(epoch FROM max(last_reconciled_at)) * 1000 AS last
       FROM namespaces WHERE status = 'ready' AND name LIKE $1`,
      [`${prefix}%`],
    );
    const row = res.rows[0];
    if (Number(row?.n) === count && row?.last != null) {
      await phases?.ready(db, count, Number(row.last));
      return Number(row.last) - startWall;
    }
    // The window ends at the last row's own timestamp, so polling less often while many are
    // left changes nothing measured and takes less of core 1 (a count over 10,000 rows).
    await sleep(Math.min(2_000, Math.max(250, (count - Number(row?.n ?? 0)) * 5)));
  }
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
