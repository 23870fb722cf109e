/**
 * `npm run bench`: the performance bars P1–P8 of quality.md §2, each measured side by side in
 * one run on a real cluster and a real PostgreSQL, printed as a table (P4–P8 in their own
 * modules), followed by the scaling curve: cost per Namespace at three sizes (P1 at the first
 * two, P6 at the third), each on a fresh cluster. Counts and durations can be made smaller with
 * BENCH_* variables for development; `--quick` runs every measure with small counts (same
 * table shape, a few minutes). `npm run bench -- --only P7,P8` runs only those.
 * `npm run bench -- --record` also writes the tables to bench/RESULTS.md with machine, date
 * and load; with `--only` it appends a section instead of replacing the file.
 * `npm run bench -- --only P9`: 10,000 tenants on a cluster of their own (bench/p9-ten-thousand.ts;
 * BENCH_P9_TENANTS, BENCH_P9_P8_SECONDS; BENCH_P9_P1=0 skips P1 (split cores) at that size;
 * BENCH_P9_HEAP_SNAPSHOT=<dir> writes a heap snapshot of the worker after provisioning).
 *
 * Diagnostics of P1 (bench/provisioning.ts), none of them on by default:
 * - BENCH_P1_WARM_UP=<n>: the uncounted warm-up batch each side runs first (default 300);
 * - BENCH_P1_CPU_PROF=<dir>: `--cpu-prof` profiles of the `occ api` and `occ worker` processes
 *   (V8 samples its thread on a wall clock: on 2 saturated cores, time the thread spent waiting
 *   for a CPU after a write woke another process lands on that write; `perf` tells CPU apart);
 * - BENCH_P1_PERF_MAP=1: `--perf-basic-prof` for them, for a system-wide `perf record`;
 * - BENCH_P1_PG_STATS=1: the 30 costliest statements of OCC's window (pg_stat_statements: calls,
 *   execution and planning time);
 * - BENCH_P1_PHASES=1: OCC's window split into the create burst and the drain, each with its
 *   CPU by process, and the queued/finished timeline per 100 ms (bench/p1-phases.ts); and the
 *   split pair's bare window's CPU by process;
 * - BENCH_P1_NODE_FLAGS="<flags>": more Node.js/V8 flags for the `occ api` and `occ worker`
 *   processes, space-separated (e.g. `--max-semi-space-size=16`), for experiments;
 * - BENCH_P1_PERF=<path>: a system-wide `perf record -g` over OCC's window, to `<path>-<size>`;
 * - BENCH_PG_SETTINGS="<name=value …>": more PostgreSQL settings for every measure (e.g.
 *   `shared_preload_libraries=auto_explain auto_explain.log_min_duration=0`);
 * - BENCH_P1_SPLIT_RUNS=<n>: P1 (split cores) at 200 and 1,000 is the median of n pairs, each on
 *   a fresh cluster (default 3; P9's at 10,000 is one);
 * - BENCH_P1_SPLIT_WATCHED=1: in each split pair, after the bare window, the bare client's same
 *   writes again with the worker's five watches open in its process, on the same split cores
 *   (what the watches the spec requires cost the cluster's core, with nothing else of OCC's);
 *   `=first` runs that window before the bare one instead (the other order);
 * - BENCH_P1_CONCURRENCY=<n>: P1's load generator's clients and the bare client's sequences
 *   (default 8); BENCH_WORKER_CONCURRENCY=<n>: the worker's passes at once (default 8);
 * - BENCH_P1_NICE="worker=<n>,api=<n>,postgres=<n>": those sides of OCC's split window at that
 *   nice value (bench/split-cores.ts), to tell the worker's wait for core 1 in the create burst;
 * - BENCH_P1_SPLIT=0: skip the context pair at P1's sizes that keeps the cluster on core 0 and
 *   everything else on core 1 (bench/split-cores.ts; on by default, not the bar).
 */
import { cpus, totalmem } from "node:os";
import { appendFile, writeFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { pino } from "pino";
import { currentManagedName, type NamespaceId } from "../src/domain/index.js";
import type { ComputeDriver } from "../src/drivers/compute.js";
import { createObjectClient, loadKubeConfig } from "../src/drivers/kubernetes/client/index.js";
import { KubernetesComputeDriver } from "../src/drivers/kubernetes/compute/driver.js";
import { createWorkerRuntime } from "../src/drivers/runtime.js";
import { namespaceWorkQueue } from "../src/work/queues.js";
import { runBootstrap, startApiProcess } from "../src/main/processes.js";
import { startWorker } from "../src/worker/worker.js";
import { percentile, startBenchEnvironment } from "./environment.js";
import { measureConfigReads } from "./p4-config-reads.js";
import { measureCreateThroughput } from "./p5-create-throughput.js";
import { buildOcc } from "./occ-process.js";
import { cachedPassRow } from "./p2-cached.js";
import { loadAverage, measureScalePoint, POD_HEAP, type ScalePoint } from "./provisioning.js";
import { splitText } from "./split-cores.js";

const QUICK = process.argv.includes("--quick");
if (QUICK) {
  // Read by p7-p8-rows.ts when it is imported below.
  process.env.BENCH_P7_TENANTS ??= "200";
  process.env.BENCH_P7_DELETES ??= "10";
  process.env.BENCH_P8_SECONDS ??= "30";
  process.env.BENCH_P1_WARM_UP ??= "100";
}
const count = (name: string, full: number, quick: number) =>
  Number(process.env[name] ?? (QUICK ? quick : full));
/** The scaling curve's sizes: P1 at the first two, P6 at the third. */
const SIZES = [
  count("BENCH_TENANTS", 200, 50),
  count("BENCH_P1_LARGE", 1000, 200),
  count("BENCH_P6_TENANTS", 2000, 400),
] as const;
const P4_SMALL = count("BENCH_P4_SMALL", 20, 20);
const P4_TENANTS = count("BENCH_P4_TENANTS", 2000, 200);
const P4_READS = count("BENCH_P4_READS", 200, 50);
const P5_SECONDS = count("BENCH_P5_SECONDS", 10, 3);
const P3_POSTS = count("BENCH_P3_POSTS", 50, 20);
const CONCURRENCY = 8;
/** P1's load generator's clients and the bare client's sequences (BENCH_P1_CONCURRENCY). */
const P1_CONCURRENCY = count("BENCH_P1_CONCURRENCY", CONCURRENCY, CONCURRENCY);
/** P1 (split cores) at 200 and 1,000: the median of this many pairs (BENCH_P1_SPLIT_RUNS). */
const SPLIT_RUNS = count("BENCH_P1_SPLIT_RUNS", 3, 1);
const onlyArg = process.argv.find(
  (a, i) => process.argv[i - 1] === "--only" || a.startsWith("--only="),
);
const only =
  onlyArg === undefined
    ? null
    : new Set(
        onlyArg
          .replace(/^--only=/, "")
          .split(",")
          .map((p) => p.trim().toUpperCase()),
      );
const want = (...measures: string[]) => only === null || measures.some((m) => only.has(m));
const rows: [string, string, string, string][] = [];
const log = (line: string) => {
  console.error(`[bench] ${line}`);
};

const startLoad = await loadAverage();
const env = await startBenchEnvironment();
const curve: ScalePoint[] = [];
let p9CurveRow = "";
try {
  if (want("P2", "P3", "P4")) {
    const boot = await runBootstrap(env.db, env.config);
    const key = boot.apiKey ?? "";
    const silent = pino({ level: "silent" });
    const api = await startApiProcess({ db: env.db, config: env.config, port: 0, logger: silent });
    const compute = await createWorkerRuntime({ config: env.config });
    const called = new Map<string, number>();
    const timed: ComputeDriver = {
      ensureNamespace: (input) => {
        if (!called.has(input.namespaceId)) called.set(input.namespaceId, performance.now());
        return compute.compute.ensureNamespace(input);
      },
      deleteNamespace: (input) => compute.compute.deleteNamespace(input),
    };
    const worker = await startWorker({
      db: env.db,
      queue: namespaceWorkQueue(env.config),
      compute: timed,
      concurrency: CONCURRENCY,
      owner: "bench",
      logger: silent,
    });
    const post = async (name: string): Promise<{ id: string; at: number }> => {
      const res = await fetch(`${api.url}/namespaces`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      const at = performance.now();
      if (res.status !== 201)
        throw new Error(`POST /namespaces: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { data: { id: string } };
      return { id: body.data.id, at };
    };

    // P3: POST returning → the worker picking the work up (its Driver call), one at a time.
    log(`P3: ${P3_POSTS} sequential POSTs, time to claim`);
    const lags: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < P3_POSTS; i++) {
      const { id, at } = await post(`p3-${i}`);
      ids.push(id);
      while (!called.has(id)) await new Promise((r) => setTimeout(r, 1));
      lags.push((called.get(id) ?? at) - at);
    }
    if (want("P3")) {
      rows.push([
        "P3 POST → claim, p50",
        `${percentile(lags, 50).toFixed(1)} ms`,
        "≤ 20 ms",
        percentile(lags, 50) <= 20 ? "pass" : "FAIL",
      ]);
    }

    // P2: requests of one ensure pass over an unchanged, ready namespace (one of P3's).
    if (want("P2")) {
      const id = ids[0] as NamespaceId;
      const uidOf = async () =>
        (
          await env.db.query<{ kubernetes_uid: string | null; status: string }>(
            "SELECT kubernetes_uid, status FROM namespaces WHERE id = $1",
            [id],
          )
        ).rows[0];
      let row = await uidOf();
      for (let i = 0; row?.status !== "ready" && i < 600; i++) {
        await new Promise((r) => setTimeout(r, 50));
        row = await uidOf();
      }
      const uid = row?.kubernetes_uid ?? null;
      const client = createObjectClient(loadKubeConfig(env.config.kubernetes.kubeconfig));
      const driver = new KubernetesComputeDriver({ client, settings: env.config.compute });
      const pass = await driver.ensureNamespace({
        namespaceId: id,
        placement: { mode: "managed" },
        boundUid: uid,
      });
      if (pass.outcome !== "ready" || pass.namespaceName !== currentManagedName(id))
        throw new Error("P2 namespace not ready");
      rows.push([
        "P2 requests per unchanged ready pass (managed)",
        `${client.counter.total()} requests, ${client.counter.writes()} writes`,
        "≤ 5, 0 writes",
        client.counter.total() <= 5 && client.counter.writes() === 0 ? "pass" : "FAIL",
      ]);
      client.close();
      rows.push(
        await cachedPassRow(env, {
          namespaceId: id,
          placement: { mode: "managed" },
          boundUid: uid,
        }),
      );
    }

    // P4: configuration reads with P4_SMALL tenant namespaces, then P4_TENANTS (worker running).
    if (want("P4")) {
      const p4 = await measureConfigReads(env, key, {
        small: P4_SMALL,
        large: P4_TENANTS,
        reads: P4_READS,
        log,
      });
      const p4Ratio = p4.largeP50 / p4.smallP50;
      rows.push([
        `P4 configuration read p50 (API, ${P4_READS} reads): ${p4.large} vs ${p4.small} tenant namespaces`,
        `${p4.largeP50.toFixed(2)} ms / ${p4.smallP50.toFixed(2)} ms = ${p4Ratio.toFixed(2)}`,
        "≤ 1.5",
        p4Ratio <= 1.5 ? "pass" : "FAIL",
      ]);
    }

    // The rest runs `occ` child processes: the in-process API and worker stop first.
    await worker.stop();
    compute.close();
    await api.close();
  }

  log("compiling the sources as the image does (tsc -p tsconfig.build.json)");
  const occ = want("P1", "P5", "P6", "P7", "P8", "P9") ? await buildOcc(env.dir) : "";
  // P5 at the bar's 8 clients, and reported at 16 (issue 20).
  for (const clients of want("P5") ? [CONCURRENCY, 2 * CONCURRENCY] : []) {
    const load = await loadAverage();
    const p5 = await measureCreateThroughput(env, {
      occ,
      concurrency: clients,
      seconds: P5_SECONDS,
      log,
      cpuProfileDir: process.env.BENCH_P5_CPU_PROF,
    });
    const p5Ratio = p5.apiPerSecond / p5.pgbenchTps;
    rows.push([
      `P5 POST /namespaces (compiled occ api process, no worker) vs pgbench, same writes per transaction, ${clients} clients, ${P5_SECONDS} s (load ${load})`,
      `${p5.apiPerSecond.toFixed(0)}/s / ${p5.pgbenchTps.toFixed(0)} tps = ${p5Ratio.toFixed(2)}`,
      clients === CONCURRENCY ? "≥ 0.5" : "(reported)",
      clients !== CONCURRENCY ? "" : p5Ratio >= 0.5 ? "pass" : "FAIL",
    ]);
  }

  // P1 and P6 along the scaling curve, each size on a fresh cluster and database.
  if (want("P1", "P6")) {
    const sizes = want("P6") ? SIZES : SIZES.slice(0, 2);
    for (const [i, tenants] of sizes.entries()) {
      // The pair on separate cores at P1's sizes (BENCH_P1_SPLIT=0: not at all).
      const splitCores = i < 2 && process.env.BENCH_P1_SPLIT !== "0";
      curve.push(
        await measureScalePoint({
          occ,
          tenants,
          concurrency: P1_CONCURRENCY,
          splitCores,
          splitRuns: SPLIT_RUNS,
          log,
        }),
      );
    }
    rows.push(...scaleRows(curve));
  }
  if (want("P7", "P8")) {
    const { driftAndIdleRows } = await import("./p7-p8-rows.js");
    rows.push(...(await driftAndIdleRows(env, occ)));
  }
  // P9: its own size (10,000) on a cluster of its own, only when asked for (`--only P9`) or
  // in a full run — not in a `--quick` one (P9 alone takes about 25 minutes).
  if (only?.has("P9") === true || (only === null && !QUICK)) {
    const { measureTenThousand } = await import("./p9-ten-thousand.js");
    const p9 = await measureTenThousand({ occ, log });
    rows.push(...p9.rows);
    p9CurveRow = p9.curveRow;
    // P1 (split cores) at P9's size: five more provisionings of 10,000 (BENCH_P9_P1=0: none).
    if (process.env.BENCH_P9_P1 !== "0") {
      const tenants = Number(process.env.BENCH_P9_TENANTS ?? 10_000);
      const point = await measureScalePoint({
        occ,
        tenants,
        concurrency: P1_CONCURRENCY,
        splitCores: true,
        log,
      });
      curve.push(point);
      rows.push(...scaleRows([point]));
    }
  }
} finally {
  await env.stop();
}

/** P1 at the curve's first two sizes, P6 at its last. */
function scaleRows(points: readonly ScalePoint[]): [string, string, string, string][] {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  const out: [string, string, string, string][] = [];
  for (const p of points.slice(0, 2)) {
    const ratio = p.occ.ms / p.bare.ms;
    out.push([
      `P1 ${p.tenants} managed Namespaces until ready (compiled occ api + occ worker) / bare client, same writes (load ${p.load})`,
      `${(p.occ.ms / 1000).toFixed(2)} s / ${(p.bare.ms / 1000).toFixed(2)} s = ${ratio.toFixed(2)}`,
      // Issue 39: P1 is the split-core pair below; this co-located ratio reads the CPU ratio.
      p.split === undefined ? "≤ 1.25" : "(context: the bar is the split pair)",
      p.split === undefined ? (ratio <= 1.25 ? "pass" : "FAIL") : "",
    ]);
  }
  for (const p of points.slice(0, 2)) {
    out.push([
      `(not the bar) P1 ${p.tenants}: OCC / the bare client's same writes with the worker's five watches open in its process (what watching alone costs on these 2 cores)`,
      `${(p.occ.ms / 1000).toFixed(2)} s / ${(p.bareWatchedMs / 1000).toFixed(2)} s = ${(p.occ.ms / p.bareWatchedMs).toFixed(2)}; bare with watches / bare = ${(p.bareWatchedMs / p.bare.ms).toFixed(2)}`,
      "",
      "",
    ]);
    const cpu = p.cpuPerApiServerSecond;
    out.push([
      `(not the bar) P1 ${p.tenants}: CPU of every process in each window per kube-apiserver CPU second, OCC / bare (how fast the machine ran cancels out)`,
      `${cpu.occ.toFixed(2)} / ${cpu.bare.toFixed(2)} = ${(cpu.occ / cpu.bare).toFixed(2)}`,
      "",
      "",
    ]);
    if (p.split !== undefined) {
      const split = p.split.occMs / p.split.bareMs;
      out.push([
        `P1 (split cores, issue 39) ${p.tenants} with the cluster (kube-apiserver, etcd, controller manager) on core 0 and the rest (occ api, occ worker, PostgreSQL and the load generator; or the bare client) on core 1, as when the control plane does not run on the API server's CPUs`,
        `${(p.split.occMs / 1000).toFixed(2)} s / ${(p.split.bareMs / 1000).toFixed(2)} s = ` +
          (p.split.runs.length > 1
            ? `${split.toFixed(2)} (the median of ${p.split.runs.length} pairs, each on a fresh cluster: ${p.split.runs.map(splitText).join("; ")})`
            : splitText(p.split)),
        "≤ 1.10",
        split <= 1.1 ? "pass" : "FAIL",
      ]);
    }
  }
  const last = points[2];
  if (last !== undefined) {
    for (const [who, m] of [
      ["occ api", last.api],
      ["occ worker (watch caches included)", last.worker],
    ] as const) {
      out.push([
        `P6 ${who} resident memory, ${last.tenants} ready tenants, compiled, \`${POD_HEAP.join(" ")}\`: median of ${m.samples} samples over 5 s (peak VmHWM) (load ${last.load})`,
        `${mb(m.median)} MB (peak ${mb(m.peak)} MB)`,
        "≤ 200 MB",
        m.median <= 200e6 ? "pass" : "FAIL",
      ]);
    }
  }
  return out;
}

const table = [
  "| Measure | Result | Bar | |",
  "|---|---|---|---|",
  ...rows.map((r) => `| ${r.join(" | ")} |`),
].join("\n");
console.log(table);

/** Cost per Namespace at each size of the curve: growth is visible down each column. */
const per = (n: number, of: number) => (n / of).toFixed(2);
let curveTable =
  curve.length === 0
    ? ""
    : [
        "",
        "Cost per Namespace (OCC = compiled `occ api` + `occ worker`; each side first provisions a warm-up batch that is not counted, its time in the last column; requests and writes as kube-apiserver counted them on the kinds the worker touches, WATCH excluded; RSS median of the samples after all were ready, peak VmHWM):",
        "",
        "| Namespaces | OCC ms / Namespace | bare ms / Namespace | OCC / bare | requests / Namespace (OCC, bare) | writes / Namespace (OCC, bare) | passes / Namespace | worker RSS | API RSS | load (1/5/15 min) | warm-up batch (fresh processes): OCC / bare |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        ...curve.map(
          (p) =>
            `| ${p.tenants} | ${per(p.occ.ms, p.tenants)} | ${per(p.bare.ms, p.tenants)} | ${(p.occ.ms / p.bare.ms).toFixed(2)} | ${per(p.occ.requests, p.tenants)}, ${per(p.bare.requests, p.tenants)} | ${per(p.occ.writes, p.tenants)}, ${per(p.bare.writes, p.tenants)} | ${per(p.attempts, p.tenants)} (${p.pendings} pending) | ${(p.worker.median / 1e6).toFixed(0)} MB (peak ${(p.worker.peak / 1e6).toFixed(0)}) | ${(p.api.median / 1e6).toFixed(0)} MB (peak ${(p.api.peak / 1e6).toFixed(0)}) | ${p.load} | ${p.warmUp.tenants}: ${(p.warmUp.occMs / 1000).toFixed(2)} s / ${(p.warmUp.bareMs / 1000).toFixed(2)} s = ${(p.warmUp.occMs / p.warmUp.bareMs).toFixed(2)} |`,
        ),
      ].join("\n");
if (p9CurveRow !== "") {
  curveTable =
    (curveTable === ""
      ? "\n| Namespaces | OCC ms / Namespace | bare ms / Namespace | OCC / bare | requests / Namespace (OCC, bare) | writes / Namespace (OCC, bare) | passes / Namespace | worker RSS | API RSS | load (1/5/15 min) | warm-up batch |\n|---|---|---|---|---|---|---|---|---|---|---|"
      : curveTable) + `\n${p9CurveRow}`;
}
curveTable += growthNote(curve);
console.log(curveTable);
if (process.argv.includes("--record")) {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node.js ${process.version}`;
  const at = new Date().toISOString();
  const results = new URL("./RESULTS.md", import.meta.url);
  if (only === null) {
    await writeFile(
      results,
      `# Benchmark results\n\nRecorded by \`npm run bench -- --record${QUICK ? " --quick" : ""}\` on ${at} (${machine}); load average ${startLoad} when it started.\n\n${table}\n${curveTable}\n`,
    );
  } else {
    const which = [...only].join(",");
    await appendFile(
      results,
      `\n## ${which}\n\nRecorded by \`npm run bench -- --only ${which} --record${QUICK ? " --quick" : ""}\` on ${at} (${machine}); load average ${startLoad} when it started.\n\n${table}\n${curveTable}\n`,
    );
  }
}

/**
 * Issue 39: the cost per Namespace at the curve's largest size within 1.2× of the cost at 1,000
 * (time, requests, writes, worker and API RSS per tenant); names what grows faster.
 */
function growthNote(points: readonly ScalePoint[]): string {
  const base = points.find((p) => p.tenants === 1000);
  const top = points.reduce<ScalePoint | undefined>(
    (a, p) => (a === undefined || p.tenants > a.tenants ? p : a),
    undefined,
  );
  if (base === undefined || top === undefined || top.tenants <= base.tenants) return "";
  const per = (p: ScalePoint) => ({
    "time (OCC ms)": p.occ.ms / p.tenants,
    requests: p.occ.requests / p.tenants,
    writes: p.occ.writes / p.tenants,
    "worker RSS": p.worker.median / p.tenants,
    "API RSS": p.api.median / p.tenants,
  });
  const [a, b] = [per(base), per(top)];
  const grows = Object.entries(b)
    .map(([k, v]) => [k, v / (a[k as keyof typeof a] || 1)] as const)
    .filter(([, r]) => r > 1.2)
    .map(([k, r]) => `${k} ×${r.toFixed(2)}`);
  // The cluster's own floor at both sizes: what the bare client's time per Namespace did.
  const floor = top.bare.ms / top.tenants / (base.bare.ms / base.tenants);
  return `\n\nCost per Namespace at ${top.tenants} vs 1000 (bar: within 1.2×): ${grows.length === 0 ? "nothing grows faster than linearly" : `faster than linear: ${grows.join(", ")}`}; the bare client's time per Namespace (the cluster's own cost) ×${floor.toFixed(2)}.\n`;
}
