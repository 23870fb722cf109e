import { request } from "node:https";
import { performance } from "node:perf_hooks";
import type { BenchEnvironment } from "./environment.js";
import type { WatchedTenants } from "./p7-drift-repair.js";

/** The kinds the worker reads or writes: its share of the API server's counts. */
const WORKER_RESOURCES = new Set([
  "namespaces",
  "networkpolicies",
  "resourcequotas",
  "limitranges",
  "rolebindings",
  "events",
]);

/** `apiserver_request_total` from the API server's own /metrics, summed as P8 needs. */
export interface ServerCounts {
  /** Every request but WATCH (and the bench's own /metrics scrapes). */
  readonly nonWatch: number;
  /** Non-WATCH requests on the kinds the worker touches. */
  readonly workerKinds: number;
  /** Writes (POST/PUT/PATCH/DELETE/DELETECOLLECTION) on any resource. */
  readonly writes: number;
  /** Writes on the kinds the worker touches. */
  readonly workerWrites: number;
  /** Non-WATCH requests by `resource verb` (to name what else the server counted). */
  readonly byResource: Readonly<Record<string, number>>;
}

const WRITE_VERBS = new Set([
  "POST",
  "CREATE",
  "PUT",
  "UPDATE",
  "PATCH",
  "APPLY",
  "DELETE",
  "DELETECOLLECTION",
]);

/** Reads kube-apiserver's /metrics as the admin identity and sums `apiserver_request_total`. */
export async function apiServerCounts(env: BenchEnvironment): Promise<ServerCounts> {
  const body = await new Promise<string>((resolve, reject) => {
    const req = request(
      new URL("/metrics", env.cluster.server),
      {
        ca: env.cluster.caPem,
        headers: { authorization: `Bearer ${env.cluster.tokens.admin}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          resolve(Buffer.concat(chunks).toString("utf8"));
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
  let nonWatch = 0;
  let workerKinds = 0;
  let writes = 0;
  let workerWrites = 0;
  const byResource: Record<string, number> = {};
  for (const line of body.split("\n")) {
    if (!line.startsWith("apiserver_request_total{")) continue;
    const labels = Object.fromEntries(
      [...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1] ?? "", m[2] ?? ""]),
    );
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    const verb = labels.verb ?? "";
    if (verb === "WATCH") continue;
    // The scrape itself is a non-resource GET of /metrics: not the worker's.
    if ((labels.resource ?? "") === "" && verb === "GET") continue;
    nonWatch += value;
    if (WORKER_RESOURCES.has(labels.resource ?? "")) workerKinds += value;
    if (WRITE_VERBS.has(verb)) writes += value;
    if (WRITE_VERBS.has(verb) && WORKER_RESOURCES.has(labels.resource ?? "")) workerWrites += value;
    const key = `${labels.resource ?? ""} ${verb}`;
    byResource[key] = (byResource[key] ?? 0) + value;
  }
  return { nonWatch, workerKinds, writes, workerWrites, byResource };
}

export interface IdleCostResult {
  readonly seconds: number;
  readonly nonWatchPerSecond: number;
  readonly workerKindsPerSecond: number;
  readonly writes: number;
  readonly workerWrites: number;
  /** What else the server counted in the window, `resource VERB: n`. */
  readonly others: string;
  /** The worker's own count of requests in the window (its occ_kubernetes_requests_total). */
  readonly workerClientRequests: number;
  readonly resyncPasses: number;
}

/** Sum of the worker's `occ_kubernetes_requests_total` (every verb but `watch`). */
async function workerClientRequests(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let n = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith("occ_kubernetes_requests_total{")) continue;
    if (line.includes('verb="watch"')) continue;
    n += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return n;
}

/**
 * P8: with every tenant ready and nothing changing, counts for `seconds` what the API server
 * itself records (`apiserver_request_total`, WATCH excluded), while `forceResync` is called once
 * halfway (every live Namespace queued for a pass) and its passes are waited for.
 */
export async function measureIdleCost(
  env: BenchEnvironment,
  tenants: WatchedTenants,
  opts: {
    seconds: number;
    forceResync: () => Promise<number>;
    log: (line: string) => void;
  },
): Promise<IdleCostResult> {
  opts.log(`P8: ${opts.seconds} s idle with ${tenants.ids.length} ready tenants, one full resync`);
  const before = await apiServerCounts(env);
  const clientBefore = await workerClientRequests(tenants.workerMetrics);
  const start = performance.now();
  await new Promise((r) => setTimeout(r, (opts.seconds * 1_000) / 2));
  const resyncPasses = await opts.forceResync();
  const rest = opts.seconds * 1_000 - (performance.now() - start);
  await new Promise((r) => setTimeout(r, Math.max(0, rest)));
  const seconds = (performance.now() - start) / 1_000;
  const after = await apiServerCounts(env);
  const clientAfter = await workerClientRequests(tenants.workerMetrics);
  return {
    seconds,
    nonWatchPerSecond: (after.nonWatch - before.nonWatch) / seconds,
    workerKindsPerSecond: (after.workerKinds - before.workerKinds) / seconds,
    writes: after.writes - before.writes,
    workerWrites: after.workerWrites - before.workerWrites,
    others: Object.entries(after.byResource)
      .map(([k, v]) => [k, v - (before.byResource[k] ?? 0)] as const)
      .filter(([k, v]) => v > 0 && !WORKER_RESOURCES.has(k.split(" ")[0] ?? ""))
      .map(([k, v]) => `${k}: ${v}`)
      .join(", "),
    workerClientRequests: clientAfter - clientBefore,
    resyncPasses,
  };
}
