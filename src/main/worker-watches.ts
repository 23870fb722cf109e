import type { Logger } from "pino";
import type { InstallationConfig } from "../config/installation-config.js";
import type { PreprovisionedBinding } from "../domain/preprovisioned/binding.js";
import {
  RequestCounter,
  loadKubeConfig,
  type ObjectClient,
  type RequestLimiter,
} from "../drivers/kubernetes/client/index.js";
import { cachedObjectClient } from "../drivers/kubernetes/watch/cached-client.js";
import { recordOwnWrites } from "../drivers/kubernetes/watch/own-write-client.js";
import { OwnWrites } from "../drivers/kubernetes/watch/own-writes.js";
import {
  WATCHED_KINDS,
  startWatchSet,
  type WatchSet,
} from "../drivers/kubernetes/watch/watch-set.js";
import type { Db } from "../store/db.js";
import type { ControlPlaneMetrics } from "./metrics.js";
import { touchBatcher, type RequestPasses } from "./watch-triggers.js";

/** What the worker process gets from its watches. */
export interface WorkerWatches {
  /** The Compute Driver's client, reading watched kinds from the caches (or unchanged). */
  wrap(client: ObjectClient): ObjectClient;
  stop(): Promise<void>;
}

/**
 * Starts what keeps bound tenants under watch (lifecycle.md §1):
 * - normal profile, bundled Kubernetes driver: one watch per kind (`WATCHED_KINDS`); each
 *   change queues the tenant's pass, and passes read those kinds from the caches; the watch
 *   event of the worker's own write (the exact version that write returned) is recognised as
 *   its echo and queues nothing (`own-writes.ts`);
 * - preprovisioned profile: its RBAC grants `get` on one namespace and named objects only, no
 *   list or watch, so the one bound Namespace's pass is queued every `worker.pollSeconds`, and
 *   that pass `get`s exactly what the profile may read;
 * - an installed Compute Driver module: nothing (it owns its own reads).
 */
export function startWorkerWatches(opts: {
  readonly db: Db;
  readonly config: InstallationConfig;
  readonly binding: PreprovisionedBinding | null;
  readonly logger: Logger;
  readonly metrics?: ControlPlaneMetrics;
  /** The process's Kubernetes request budget: the caches' LISTs take from it. */
  readonly limiter?: RequestLimiter;
  readonly requestPasses: RequestPasses;
}): WorkerWatches {
  const { config, logger } = opts;
  const unchanged: WorkerWatches = { wrap: (c) => c, stop: () => Promise.resolve() };
  if (config.drivers.compute !== "kubernetes") return unchanged;
  if (opts.binding !== null) {
    const id = opts.binding.namespaceId;
    const everyMs = config.worker.pollSeconds * 1_000;
    const timer = setInterval(() => {
      opts.requestPasses([id]).catch((err: unknown) => {
        logger.warn({ err }, "could not queue the periodic re-verification");
      });
    }, everyMs);
    logger.info(
      { namespaceId: id, pollSeconds: config.worker.pollSeconds },
      "preprovisioned profile: no list/watch granted; the bound namespace is re-read periodically",
    );
    return {
      wrap: (c) => c,
      stop: () => {
        clearInterval(timer);
        return Promise.resolve();
      },
    };
  }

  const own = new OwnWrites();
  const watched = new Set(WATCHED_KINDS.map((w) => w.kind));
  const batcher = touchBatcher({
    db: opts.db,
    requestPasses: opts.requestPasses,
    logger,
    isEcho: (t) => own.consume(t.version),
    ...(opts.metrics !== undefined
      ? { onRequested: (n: number) => opts.metrics?.watchRequestedPasses(n) }
      : {}),
  });
  const counter = new RequestCounter();
  opts.metrics?.countKubernetesRequests(counter);
  const set: WatchSet = startWatchSet({
    kubeconfig: loadKubeConfig(config.kubernetes.kubeconfig),
    counter,
    timeoutMs: config.kubernetes.requestTimeoutMs,
    ...(opts.limiter !== undefined ? { limiter: opts.limiter } : {}),
    onTouch: (t) => {
      batcher.touch(t);
    },
    onRestart: (kind, reason, err) => {
      opts.metrics?.watchRestarted(kind, reason);
      if (reason !== "ended") logger.warn({ kind, reason, err }, "watch restarted");
    },
  });
  opts.metrics?.watchCacheSizes(() => set.sizes());
  const started = Date.now();
  void set.waitForSync(10 * 60_000).then((synced) => {
    if (synced) {
      logger.info({ ms: Date.now() - started, objects: set.sizes() }, "watch caches synced");
    }
  });
  return {
    wrap: (client) => cachedObjectClient(recordOwnWrites(client, own, watched), set.reflectors),
    async stop() {
      await set.stop();
      await batcher.stop();
    },
  };
}
