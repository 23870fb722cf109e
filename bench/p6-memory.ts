import { performance } from "node:perf_hooks";
import { runBootstrap } from "../src/main/processes.js";
import type { BenchEnvironment } from "./environment.js";
import { apiRequest, OCC_SOURCE, postNamespace, startOcc, type OccChild } from "./occ-process.js";

export interface ProcessMemory {
  readonly rss: number;
  readonly peak: number;
}

export interface MemoryResult {
  readonly tenants: number;
  readonly ready: number;
  readonly workedSeconds: number;
  readonly api: ProcessMemory;
  readonly worker: ProcessMemory;
  /** Not the bar: `occ api` run from the sources through tsx, after the same listing. */
  readonly apiFromSources: ProcessMemory;
}

/**
 * P6: `occ api` and `occ worker` as separate child processes (`opts.occ`: the compiled entry
 * point bin/occ.js runs in the image) on a fresh database. `tenants` Namespaces are created through the
 * API, the worker provisions them for up to `workSeconds` (until all are ready if sooner),
 * the API pages through all of them once, then each process's resident memory is read from
 * /proc (VmRSS now, VmHWM peak). For comparison only, an `occ api` started from this
 * checkout's sources (`node bin/occ.js`, through tsx) then does the same listing.
 */
export async function measureMemory(
  env: BenchEnvironment,
  opts: {
    occ: string;
    tenants: number;
    concurrency: number;
    workSeconds: number;
    log: (line: string) => void;
  },
): Promise<MemoryResult> {
  const { url, db } = await env.database("occ_p6");
  const key = (await runBootstrap(db, env.config)).apiKey ?? "";
  const common = ["--database-url", url, "--config", env.configFile];
  const listening = /listening on (http:\/\/\S+)/;
  const api = await startOcc(opts.occ, ["api", ...common, "--port", "0"], listening);
  const worker = await startOcc(
    opts.occ,
    ["worker", ...common, "--metrics-port", "0"],
    /"metrics":"(http:\/\/[^"]+\/metrics)"/,
  ).catch(async (err: unknown) => {
    await api.stop();
    throw err;
  });
  try {
    opts.log(`P6: ${opts.tenants} Namespaces through the occ api process`);
    const start = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (next < opts.tenants) {
          const i = next++;
          await postNamespace(api.announced, key, `p6-${i}`);
        }
      }),
    );
    opts.log(`P6: the occ worker process provisions them (at most ${opts.workSeconds} s)`);
    let ready = 0;
    for (;;) {
      const res = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM namespaces WHERE status = 'ready' AND name LIKE 'p6-%'",
      );
      ready = Number(res.rows[0]?.n);
      const elapsed = (performance.now() - start) / 1_000;
      if (ready === opts.tenants || elapsed >= opts.workSeconds) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const workedSeconds = (performance.now() - start) / 1_000;
    await listAll(api, key, opts.tenants);
    const apiMemory = await api.memory();
    const workerMemory = await worker.memory();
    opts.log("P6: for comparison, occ api from the sources (tsx) lists them too");
    const fromSources = await startOcc(OCC_SOURCE, ["api", ...common, "--port", "0"], listening);
    let apiFromSources: ProcessMemory;
    try {
      await listAll(fromSources, key, opts.tenants);
      apiFromSources = await fromSources.memory();
    } finally {
      await fromSources.stop();
    }
    return {
      tenants: opts.tenants,
      ready,
      workedSeconds,
      api: apiMemory,
      worker: workerMemory,
      apiFromSources,
    };
  } finally {
    await worker.stop();
    await api.stop();
  }
}

/** Pages through every Namespace once (1,000 a page). */
async function listAll(api: OccChild, key: string, atLeast: number): Promise<void> {
  let listed = 0;
  for (let cursor: string | null = null; ;) {
    const page = await fetch(
      `${api.announced}/namespaces?limit=1000${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      apiRequest(key, "GET"),
    );
    if (page.status !== 200) throw new Error(`P6 list: ${page.status} ${await page.text()}`);
    const body = (await page.json()) as { data: unknown[]; meta: { nextCursor: string | null } };
    listed += body.data.length;
    cursor = body.meta.nextCursor;
    if (cursor === null) break;
  }
  if (listed < atLeast) throw new Error(`P6: the API listed ${listed} Namespaces`);
}
