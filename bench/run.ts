/**
 * `npm run bench`: the performance bars P1–P8 of quality.md §2, each measured side by side in
 * one run on a real cluster and a real PostgreSQL, printed as a table (P4–P8 in their own
 * modules). Counts and durations can be made smaller with BENCH_* variables for development.
 * `npm run bench -- --only P7,P8` runs only those (P2 needs P1's tenants, so P2 runs P1's
 * provisioning too). `npm run bench -- --record` also writes the table to bench/RESULTS.md
 * with machine and date; with `--only` it appends a section instead of replacing the file.
 */
import { cpus, totalmem } from "node:os";
import { appendFile, writeFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { pino } from "pino";
import { currentManagedName, type NamespaceId } from "../src/domain/index.js";
import type { ComputeDriver } from "../src/drivers/compute.js";
import { createObjectClient, loadKubeConfig } from "../src/drivers/kubernetes/client/index.js";
import { KubernetesComputeDriver } from "../src/drivers/kubernetes/compute/driver.js";
import { createComputeRuntime } from "../src/main/compute.js";
import { namespaceWorkQueue } from "../src/main/namespace-queue.js";
import { runBootstrap, startApiProcess } from "../src/main/processes.js";
import { startWorker } from "../src/worker/worker.js";
import { bareProvisioning } from "./bare-provisioning.js";
import { percentile, startBenchEnvironment } from "./environment.js";
import { measureConfigReads } from "./p4-config-reads.js";
import { measureCreateThroughput } from "./p5-create-throughput.js";
import { measureMemory, type ProcessMemory } from "./p6-memory.js";
import { buildOcc } from "./occ-process.js";
import { cachedPassRow } from "./p2-cached.js";
import { driftAndIdleRows } from "./p7-p8-rows.js";

const TENANTS = Number(process.env.BENCH_TENANTS ?? 200);
const P4_SMALL = Number(process.env.BENCH_P4_SMALL ?? 20);
const P4_TENANTS = Number(process.env.BENCH_P4_TENANTS ?? 2000);
const P4_READS = Number(process.env.BENCH_P4_READS ?? 200);
const P5_SECONDS = Number(process.env.BENCH_P5_SECONDS ?? 10);
const P6_TENANTS = Number(process.env.BENCH_P6_TENANTS ?? 2000);
const P6_WORK_SECONDS = Number(process.env.BENCH_P6_WORK_SECONDS ?? 120);
const CONCURRENCY = 8;
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

const env = await startBenchEnvironment();
try {
  if (want("P1", "P2", "P3", "P4")) {
    const boot = await runBootstrap(env.db, env.config);
    const key = boot.apiKey ?? "";
    const silent = pino({ level: "silent" });
    const api = await startApiProcess({ db: env.db, config: env.config, port: 0, logger: silent });
    const compute = await createComputeRuntime(env.config);
    const called = new Map<string, number>();
    const timed: ComputeDriver = {
      ensureNamespace: (input) => {
        if (!called.has(input.namespaceId)) called.set(input.namespaceId, performance.now());
        return compute.driver.ensureNamespace(input);
      },
      deleteNamespace: (input) => compute.driver.deleteNamespace(input),
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
    if (want("P3")) {
      log("P3: 50 sequential POSTs, time to claim");
      const lags: number[] = [];
      for (let i = 0; i < 50; i++) {
        const { id, at } = await post(`p3-${i}`);
        while (!called.has(id)) await new Promise((r) => setTimeout(r, 1));
        lags.push((called.get(id) ?? at) - at);
      }
      rows.push([
        "P3 POST → claim, p50",
        `${percentile(lags, 50).toFixed(1)} ms`,
        "≤ 20 ms",
        percentile(lags, 50) <= 20 ? "pass" : "FAIL",
      ]);
    }

    // P1: TENANTS managed Namespaces through the API until ready, vs the bare writes.
    if (want("P1", "P2")) {
      log(`P1: ${TENANTS} managed Namespaces through OCC`);
      const occStart = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < TENANTS; i += CONCURRENCY) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(CONCURRENCY, TENANTS - i) }, (_, j) => post(`p1-${i + j}`)),
        );
        ids.push(...batch.map((b) => b.id));
      }
      for (;;) {
        const res = await env.db.query<{ n: string }>(
          "SELECT count(*) AS n FROM namespaces WHERE status = 'ready' AND name LIKE 'p1-%'",
        );
        if (Number(res.rows[0]?.n) === TENANTS) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const occMs = performance.now() - occStart;
      const passes = await env.db.query<{ attempts: string; pendings: string }>(
        "SELECT sum(attempt_count) AS attempts, sum(pending_count) AS pendings FROM work_items",
      );
      log(
        `P1: work passes: ${passes.rows[0]?.attempts} attempts, ${passes.rows[0]?.pendings} pending`,
      );
      if (want("P1")) {
        log(`P1: the same Kubernetes writes from a bare script, concurrency ${CONCURRENCY}`);
        const bareMs = await bareProvisioning(env, TENANTS, CONCURRENCY);
        const ratio = occMs / bareMs;
        rows.push([
          `P1 ${TENANTS} managed Namespaces: OCC / bare`,
          `${(occMs / 1000).toFixed(2)} s / ${(bareMs / 1000).toFixed(2)} s = ${ratio.toFixed(2)}`,
          "≤ 1.25",
          ratio <= 1.25 ? "pass" : "FAIL",
        ]);
      }

      // P2: requests of one ensure pass over an unchanged, ready namespace.
      const client = createObjectClient(loadKubeConfig(env.config.kubernetes.kubeconfig));
      const driver = new KubernetesComputeDriver({ client, settings: env.config.compute });
      const id = ids[0] as NamespaceId;
      const uid =
        (
          await env.db.query<{ kubernetes_uid: string }>(
            "SELECT kubernetes_uid FROM namespaces WHERE id = $1",
            [id],
          )
        ).rows[0]?.kubernetes_uid ?? null;
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

    // P5 and P6 run `occ` child processes on databases of their own: the in-process API and
    // worker stop first.
    await worker.stop();
    compute.close();
    await api.close();
  }

  log("compiling the sources as the image does (tsc -p tsconfig.build.json)");
  const occ = want("P5", "P6", "P7", "P8") ? await buildOcc(env.dir) : "";
  // P5 at the bar's 8 clients, and reported at 16 (issue 20).
  for (const clients of want("P5") ? [CONCURRENCY, 2 * CONCURRENCY] : []) {
    const p5 = await measureCreateThroughput(env, {
      occ,
      concurrency: clients,
      seconds: P5_SECONDS,
      log,
      cpuProfileDir: process.env.BENCH_P5_CPU_PROF,
    });
    const p5Ratio = p5.apiPerSecond / p5.pgbenchTps;
    rows.push([
      `P5 POST /namespaces (compiled occ api process, no worker) vs pgbench, same writes per transaction, ${clients} clients, ${P5_SECONDS} s`,
      `${p5.apiPerSecond.toFixed(0)}/s / ${p5.pgbenchTps.toFixed(0)} tps = ${p5Ratio.toFixed(2)}`,
      clients === CONCURRENCY ? "≥ 0.5" : "(reported)",
      clients !== CONCURRENCY ? "" : p5Ratio >= 0.5 ? "pass" : "FAIL",
    ]);
  }
  if (want("P6")) {
    const p6 = await measureMemory(env, {
      occ,
      tenants: P6_TENANTS,
      concurrency: CONCURRENCY,
      workSeconds: P6_WORK_SECONDS,
      log,
    });
    const mb = (bytes: number) => bytes / 1e6;
    const memoryRow = (who: string, m: ProcessMemory): [string, string, string, string] => [
      `P6 ${who} (compiled, as the image runs it) resident memory, ${p6.tenants} Namespaces created (${p6.ready} ready after ${p6.workedSeconds.toFixed(0)} s of work)`,
      `${mb(m.rss).toFixed(0)} MB (peak ${mb(m.peak).toFixed(0)} MB)`,
      "≤ 200 MB",
      mb(m.rss) <= 200 ? "pass" : "FAIL",
    ];
    rows.push(memoryRow("occ api", p6.api), memoryRow("occ worker", p6.worker));
    rows.push([
      "(not the bar) occ api run from the sources through tsx (`node bin/occ.js` without dist/), same listing",
      `${mb(p6.apiFromSources.rss).toFixed(0)} MB (peak ${mb(p6.apiFromSources.peak).toFixed(0)} MB)`,
      "",
      "",
    ]);
  }
  if (want("P7", "P8")) rows.push(...(await driftAndIdleRows(env, occ)));
} finally {
  await env.stop();
}

const table = [
  "| Measure | Result | Bar | |",
  "|---|---|---|---|",
  ...rows.map((r) => `| ${r.join(" | ")} |`),
].join("\n");
console.log(table);
if (process.argv.includes("--record")) {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node.js ${process.version}`;
  const at = new Date().toISOString();
  const results = new URL("./RESULTS.md", import.meta.url);
  if (only === null) {
    await writeFile(
      results,
      `# Benchmark results\n\nRecorded by \`npm run bench -- --record\` on ${at} (${machine}).\n\n${table}\n`,
    );
  } else {
    const which = [...only].join(",");
    await appendFile(
      results,
      `\n## ${which}\n\nRecorded by \`npm run bench -- --only ${which} --record\` on ${at} (${machine}).\n\n${table}\n`,
    );
  }
}
