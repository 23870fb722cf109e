import { hostname } from "node:os";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { InstallationConfig } from "../config/installation-config.js";
import { startApiServer, type RunningServer } from "../api/server.js";
import { RequestLimiter } from "../drivers/kubernetes/client/index.js";
import { createApiRuntime, createWorkerRuntime, withWorkerClient } from "../drivers/runtime.js";
import { bootstrap, type BootstrapOptions, type BootstrapResult } from "../services/bootstrap.js";
import { agentIdsOf } from "../store/agents.js";
import { startPolicyCache, type PolicyCache } from "../iam/policy-cache.js";
import type { Db } from "../store/db.js";
import type { RequiredSchema } from "../store/schema-version.js";
import { startWorker, type RunningWorker } from "../worker/worker.js";
import { computeSelectionOf } from "./compute.js";
import type { ControlPlaneMetrics } from "./metrics.js";
import { agentWorkQueue, namespaceWorkQueue, workQueuePolicy } from "../work/queues.js";
import { agentQueueConfig } from "../work/agent-work.js";
import { namespaceQueueConfig } from "../work/namespace-work.js";
import { requestNamespacePass } from "../work/namespace-pass-request.js";
import { startWorkerWatches } from "./worker-watches.js";
import { checkRecoveryAccount, loadAuthRuntime } from "./auth-runtime.js";
import { loadExternalProviders } from "./external-providers.js";
import { preprovisionedClusterOf } from "../drivers/preprovisioned-cluster.js";
import { rebindPreprovisionedAtStartup } from "../services/preprovisioned/rebind.js";
import { requireBoundNamespaceRecord } from "../services/preprovisioned/bound-record.js";
import { startOrphanScan } from "../worker/orphan-scan.js";
import {
  apiGrantFailuresAtStartup,
  missingGrantsWarning,
  startupProfile,
  verifyPreprovisionedNamespaceAtStartup,
} from "../services/preprovisioned/startup.js";

/** The process environment as startup reads it (`OCC_PREPROVISIONED_NAMESPACE`). */
type Environment = Readonly<Record<string, string | undefined>>;

/** `occ bootstrap`: the same service path the API uses, with the configured Compute selection. */
export function runBootstrap(
  db: Db,
  config: InstallationConfig,
  opts: BootstrapOptions = {},
): Promise<BootstrapResult> {
  return bootstrap(
    {
      db,
      queue: namespaceQueueConfig({ policy: workQueuePolicy(config) }),
      compute: computeSelectionOf(config),
      controllerNamespace: config.kubernetes.controllerNamespace,
      contentChecks: [],
    },
    opts,
  );
}

/**
 * `occ api`: the HTTP API on `host:port`, with its own Kubernetes client (the configured
 * `apiKubeconfig`: the `occ-api` identity) for the Configuration and Secret Drivers.
 */
export async function startApiProcess(opts: {
  db: Db;
  config: InstallationConfig;
  host?: string;
  port?: number;
  logger: Logger;
  registry?: Registry;
  /** Where the API's Kubernetes requests and their rate-limit waits are reported. */
  metrics?: ControlPlaneMetrics;
  /** The migrations this release needs, checked again by `/readyz`. */
  schema?: RequiredSchema;
  /** Default `process.env`. */
  env?: Environment;
}): Promise<RunningServer> {
  const binding = startupProfile(opts.config, opts.env ?? process.env);
  if (binding !== null) await requireBoundNamespaceRecord(opts.db, binding);
  const auth = await loadAuthRuntime(opts.config, opts.env ?? process.env, opts.db);
  if (auth.keyFromDatabase) {
    opts.logger.info(
      "auth.sessionKeyFile is not set: sessions are signed with the Installation's key stored in the database, shared by every API process",
    );
  }
  await checkRecoveryAccount(opts.db, opts.config, (message) => {
    opts.logger.warn(message);
  });
  const external = await loadExternalProviders(opts.config, opts.env ?? process.env);
  for (const warning of external.warnings) opts.logger.warn(warning);
  const limiter = new RequestLimiter(opts.config.kubernetes.rateLimit.api);
  opts.metrics?.observeKubernetesWaits(limiter);
  const runtime = createApiRuntime({
    config: opts.config,
    binding,
    limiter,
    onWatchRestart: (reason, err) => {
      opts.metrics?.watchRestarted("Namespace", reason);
      if (reason !== "ended") opts.logger.warn({ err, reason }, "claimant index: watch restarted");
    },
  });
  opts.metrics?.countKubernetesRequests(runtime.requests);
  const claimants = runtime.claimants;
  if (claimants !== null) opts.metrics?.watchCacheSizes(() => ({ Namespace: claimants.size }));
  if (binding !== null) {
    try {
      const cluster = preprovisionedClusterOf(runtime.client);
      const missing = await apiGrantFailuresAtStartup(cluster, opts.config, binding);
      if (missing.length > 0) opts.logger.warn(missingGrantsWarning("api", binding, missing));
    } catch (err) {
      await runtime.close();
      throw err;
    }
  }
  let policyCache: PolicyCache;
  try {
    policyCache = await startPolicyCache(opts.db, {
      onListenError: (err) => {
        opts.logger.warn(
          { err },
          "policy cache: LISTEN lost; reading keys and grants from the database until it is back",
        );
      },
    });
  } catch (err) {
    await runtime.close();
    throw err;
  }
  const server = await startApiServer({
    db: opts.db,
    policyCache,
    auth: auth.runtime,
    externalProviders: external.providers,
    drivers: runtime.drivers,
    ...(runtime.marked !== null ? { markedNamespaces: runtime.marked } : {}),
    ...(runtime.inspector !== null ? { inspector: runtime.inspector } : {}),
    compute: computeSelectionOf(opts.config),
    controllerNamespace: opts.config.kubernetes.controllerNamespace,
    preprovisionedNamespaceId: binding?.namespaceId,
    queue: namespaceQueueConfig({ policy: workQueuePolicy(opts.config) }),
    agentQueue: agentQueueConfig({ policy: workQueuePolicy(opts.config) }),
    logger: opts.logger,
    ...(opts.registry !== undefined ? { registry: opts.registry } : {}),
    ...(opts.schema !== undefined ? { schema: opts.schema } : {}),
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(opts.port !== undefined ? { port: opts.port } : {}),
  }).catch(async (err: unknown) => {
    await runtime.close();
    await policyCache.close();
    throw err;
  });
  return {
    ...server,
    async close() {
      await server.close();
      await runtime.close();
      await policyCache.close();
    },
  };
}

/** `occ worker`: claims Namespace work and calls the selected Compute Driver. */
export async function startWorkerProcess(opts: {
  db: Db;
  config: InstallationConfig;
  logger: Logger;
  metrics?: ControlPlaneMetrics;
  /** Default `process.env`. */
  env?: Environment;
}): Promise<RunningWorker> {
  const binding = startupProfile(opts.config, opts.env ?? process.env);
  // One request budget for every Kubernetes client of the process (watches excluded).
  const limiter = new RequestLimiter(opts.config.kubernetes.rateLimit.worker);
  opts.metrics?.observeKubernetesWaits(limiter);
  if (binding !== null) {
    await requireBoundNamespaceRecord(opts.db, binding);
    const missing = await withWorkerClient({ config: opts.config, limiter }, (probe) =>
      verifyPreprovisionedNamespaceAtStartup(preprovisionedClusterOf(probe), opts.config, binding),
    );
    if (missing.length > 0) opts.logger.warn(missingGrantsWarning("worker", binding, missing));
  }
  const queue = namespaceWorkQueue(opts.config);
  // Watches (normal profile) or the periodic re-read (preprovisioned): changes queue passes.
  const watches = startWorkerWatches({
    db: opts.db,
    config: opts.config,
    binding,
    logger: opts.logger,
    limiter,
    ...(opts.metrics !== undefined ? { metrics: opts.metrics } : {}),
    requestPasses: async (ids) => {
      for (const id of ids) await requestNamespacePass(opts.db, queue, id, "watch");
    },
  });
  const compute = await createWorkerRuntime({
    config: opts.config,
    binding,
    limiter,
    readsVia: (c) => watches.wrap(c),
    agentIds: (tenantId) => agentIdsOf(opts.db, tenantId),
  });
  if (binding !== null) {
    try {
      await rebindPreprovisionedAtStartup({
        db: opts.db,
        compute: compute.compute,
        binding,
        logger: opts.logger,
      });
    } catch (err) {
      compute.close();
      await watches.stop();
      throw err;
    }
  }
  if (compute.requests !== null) opts.metrics?.countKubernetesRequests(compute.requests);
  const worker = await startWorker({
    // Agent workloads run on the bundled Kubernetes Compute Driver (drivers.md §4).
    ...(compute.workloads !== null
      ? { agents: { queue: agentWorkQueue(opts.config), workloads: compute.workloads } }
      : {}),
    db: opts.db,
    queue,
    compute: compute.compute,
    ...(compute.events !== null ? { events: compute.events } : {}),
    ...(opts.metrics !== undefined
      ? {
          onPass: (kind, outcome, seconds) => opts.metrics?.observePass(kind, outcome, seconds),
          onClaim: (how) => opts.metrics?.workClaimed(how),
          onRepaired: (kind) => opts.metrics?.driftRepaired(kind),
        }
      : {}),
    resync: {
      everyMs: opts.config.worker.resyncSeconds * 1_000,
      ...(opts.metrics !== undefined
        ? { onResync: (seconds: number) => opts.metrics?.observeResync(seconds) }
        : {}),
    },
    concurrency: opts.config.worker.concurrency,
    owner: `${hostname()}:${process.pid}`,
    logger: opts.logger,
  });
  // Normal profile only: the preprovisioned one may not list namespaces.
  const orphans =
    binding === null && compute.marked !== null
      ? startOrphanScan({
          db: opts.db,
          marked: compute.marked,
          everyMs: opts.config.worker.resyncSeconds * 1_000,
          logger: opts.logger,
          ...(compute.events !== null ? { events: compute.events } : {}),
          ...(opts.metrics !== undefined
            ? { onScan: (counts) => opts.metrics?.orphanNamespaces(counts) }
            : {}),
        })
      : null;
  return {
    async stop() {
      // No new claims, scans or resyncs; passes in flight get `PASS_DRAIN_MS` to settle.
      const draining = worker.stop();
      const scanning = orphans?.stop();
      await drained(draining, PASS_DRAIN_MS);
      // Then Kubernetes is cut off, whatever the API server does (down, refusing, hanging):
      // watches and requests in flight end at once; a pass cut off settles nothing (its claim's
      // lease expires and the work returns to the queue, as after a crash).
      await watches.stop();
      compute.close();
      await Promise.all([draining, scanning]);
    },
  };
}

/**
 * How long a stopping worker lets the passes in flight finish before it closes its Kubernetes
 * clients under them: a pass against a healthy API server takes well under a second; one that
 * is still running after this waits on a server that does not answer.
 */
export const PASS_DRAIN_MS = 5_000;

/** Resolves when `work` settles or after `ms`, whichever comes first (no timer left behind). */
async function drained(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.catch(() => undefined),
    new Promise<void>((r) => {
      timer = setTimeout(r, ms);
    }),
  ]);
  clearTimeout(timer);
}
