import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { RequestCounter, RequestLimiter } from "../drivers/kubernetes/client/index.js";
import type { WorkQueue } from "../queue/index.js";
import type { Db } from "../store/db.js";
import { namespacePlacementCounts } from "../store/namespace-stats.js";
import { CLAIM_HOWS, type ClaimHow } from "../worker/claim-how.js";
import { registerStatusAgeMetrics } from "./status-metrics.js";

/**
 * The operator-facing metrics of quality.md §5, on one registry: where every tenant stands
 * (mode, status, reason), how long passes take, what OCC asks of Kubernetes, and how much work
 * waits and for how long. Gauges are computed from the database when scraped, so every process
 * that serves `/metrics` reports the same truth.
 */
export interface ControlPlaneMetrics {
  /** Times one worker pass; `outcome` is the queue move or `superseded`/`stale`. */
  observePass(kind: string, outcome: string, seconds: number): void;
  /** One work item claimed by a worker slot, and how (`ClaimHow`). */
  workClaimed(how: ClaimHow): void;
  /** Counts the Kubernetes requests of this client by verb and code. */
  countKubernetesRequests(counter: RequestCounter): void;
  /** Observes how long each Kubernetes request of this process waited for its token. */
  observeKubernetesWaits(limiter: RequestLimiter): void;
  /** One watch stream opened again, by kind and reason (`ended`, `gone`, `error`). */
  watchRestarted(kind: string, reason: string): void;
  /** Reports the watch caches' object counts by kind when scraped. */
  watchCacheSizes(sizes: () => Readonly<Record<string, number>>): void;
  /** Tenant passes queued because a watched object changed. */
  watchRequestedPasses(count: number): void;
  /** One owned object (or managed namespace's markers) written back after drift, by kind. */
  driftRepaired(kind: string): void;
  /** One full resync took this long. */
  observeResync(seconds: number): void;
  /** The orphans the worker's last scan found, counted by placement (a restore's leftovers). */
  orphanNamespaces(byPlacement: Readonly<Record<string, number>>): void;
}

export function registerControlPlaneMetrics(
  registry: Registry,
  db: Db,
  queues: readonly WorkQueue<string>[],
  opts: {
    /** The preprovisioned profile's bound Namespace, reported with mode `preprovisioned`. */
    readonly preprovisionedNamespaceId?: string | undefined;
  } = {},
): ControlPlaneMetrics {
  new Gauge({
    name: "occ_namespace_placements",
    help: "Live platform Namespaces by placement mode, status and status reason code.",
    labelNames: ["mode", "status", "reason"] as const,
    registers: [registry],
    async collect() {
      const counts = await namespacePlacementCounts(db, opts.preprovisionedNamespaceId ?? null);
      this.reset();
      for (const r of counts) this.set({ mode: r.mode, status: r.status, reason: r.reason }, r.n);
    },
  });
  registerStatusAgeMetrics(registry, db);
  // The oldest-age gauge is registered first and filled by the depth gauge's collect, which
  // the registry runs before serialising either (prom-client serialises in order).
  const oldest = new Gauge({
    name: "occ_work_queue_oldest_ready_age_seconds",
    help: "Age of the oldest work item that is ready to be claimed, by kind.",
    labelNames: ["kind"] as const,
    registers: [],
  });
  new Gauge({
    name: "occ_work_queue_depth",
    help: "Open work items by kind and state (queued, ready to claim, claimed, expired leases).",
    labelNames: ["kind", "state"] as const,
    registers: [registry],
    async collect() {
      const rows = (await Promise.all(queues.map((q) => q.depth(db)))).flat();
      this.reset();
      oldest.reset();
      // Every kind is reported, idle ones as zeros, so dashboards never see a series vanish.
      for (const kind of queues.flatMap((q) => q.kinds)) {
        const r = rows.find((row) => row.kind === kind) ?? {
          kind,
          queued: 0,
          ready: 0,
          claimed: 0,
          expiredLeases: 0,
          oldestReadyAgeMs: 0,
        };
        this.set({ kind, state: "queued" }, r.queued);
        this.set({ kind, state: "ready" }, r.ready);
        this.set({ kind, state: "claimed" }, r.claimed);
        this.set({ kind, state: "expired_lease" }, r.expiredLeases);
        oldest.set({ kind }, r.oldestReadyAgeMs / 1000);
      }
    },
  });
  registry.registerMetric(oldest);
  const passes = histogram(
    registry,
    "occ_reconcile_duration_seconds",
    "Duration of one worker pass over a work item, by kind and outcome.",
    [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    ["kind", "outcome"],
  );
  const claims = counter(
    registry,
    "occ_work_claims_total",
    "Work items claimed by this worker's slots, by how: chained (by the previous pass's settle, in its statement) or claimed (a claim of its own).",
    ["how"],
  );
  for (const how of CLAIM_HOWS) claims.inc({ how }, 0);
  const kube = counter(
    registry,
    "occ_kubernetes_requests_total",
    "Kubernetes API requests made by this process, by verb and HTTP status (or timeout/network).",
    ["verb", "code"],
  );
  const waits = histogram(
    registry,
    "occ_kubernetes_client_wait_seconds",
    "Time each Kubernetes API request of this process waited for the client's rate limit (kubernetes.rateLimit) before it was sent; watches excluded.",
    [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );
  const restarts = counter(
    registry,
    "occ_watch_restarts_total",
    "Watch streams opened again, by kind and reason (ended by the server, 410 gone: relisted, error: backed off).",
    ["kind", "reason"],
  );
  let cacheSizes: () => Readonly<Record<string, number>> = () => ({});
  new Gauge({
    name: "occ_watch_cache_objects",
    help: "Objects held in the process's watch caches, by kind (the API's: its claimant index of Namespaces).",
    labelNames: ["kind"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, n] of Object.entries(cacheSizes())) this.set({ kind }, n);
    },
  });
  const watchPasses = counter(
    registry,
    "occ_watch_requested_passes_total",
    "Tenant passes queued because a watched Kubernetes object changed.",
  );
  const repairs = counter(
    registry,
    "occ_drift_repairs_total",
    "Owned objects (and managed namespace markers) written back after drift on a bound tenant, by kind.",
    ["kind"],
  );
  const resyncs = histogram(
    registry,
    "occ_resync_duration_seconds",
    "Duration of one full resync: queueing a pass for every live Namespace.",
    [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  );
  // Set by the worker's orphan scan only, so an API process exports no series.
  const orphans = new Gauge({
    name: "occ_orphan_namespaces",
    help: "Kubernetes namespaces whose tenant markers name a platform Namespace the database does not know (never deleted, adopted or modified), by placement, as of the worker's last scan.",
    labelNames: ["placement"] as const,
    registers: [registry],
  });
  return {
    orphanNamespaces(byPlacement) {
      orphans.reset();
      for (const [placement, n] of Object.entries(byPlacement)) orphans.set({ placement }, n);
    },
    driftRepaired(kind) {
      repairs.inc({ kind });
    },
    observeResync(seconds) {
      resyncs.observe(seconds);
    },
    watchRestarted(kind, reason) {
      restarts.inc({ kind, reason });
    },
    watchCacheSizes(sizes) {
      cacheSizes = sizes;
    },
    watchRequestedPasses(count) {
      watchPasses.inc(count);
    },
    observePass(kind, outcome, seconds) {
      passes.observe({ kind, outcome }, seconds);
    },
    workClaimed(how) {
      claims.inc({ how });
    },
    observeKubernetesWaits(limiter) {
      limiter.onWait((seconds) => {
        waits.observe(seconds);
      });
    },
    countKubernetesRequests(counter) {
      counter.onRecord((verb, code) => {
        kube.inc({ verb, code });
      });
    },
  };
}

/** A counter on `registry`, with `labelNames` (none by default). */
function counter<const L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [registry] });
}

/** A histogram on `registry` with `buckets` (in seconds) and `labelNames` (none by default). */
function histogram<const L extends string>(
  registry: Registry,
  name: string,
  help: string,
  buckets: readonly number[],
  labelNames: readonly L[] = [],
): Histogram<L> {
  return new Histogram({ name, help, buckets: [...buckets], labelNames, registers: [registry] });
}
