import { hostname } from "node:os";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { InstallationConfig } from "../config/installation-config.js";
import { startApiServer, type RunningServer } from "../api/server.js";
import {
  RequestLimiter,
  createObjectClient,
  loadKubeConfig,
} from "../drivers/kubernetes/client/index.js";
import { bootstrap, type BootstrapOptions, type BootstrapResult } from "../services/bootstrap.js";
import { agentIdsOf } from "../store/agents.js";
import { startPolicyCache, type PolicyCache } from "../iam/policy-cache.js";
import type { Db } from "../store/db.js";
import type { RequiredSchema } from "../store/schema-version.js";
import { startWorker, type RunningWorker } from "../worker/worker.js";
import { computeSelectionOf, createComputeRuntime } from "./compute.js";
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
import { createTenantDrivers } from "../drivers/factory.js";
import { markedNamespacesOf } from "../drivers/marked-namespaces.js";
import { startOrphanScan } from "../worker/orphan-scan.js";
import { driverProfileOf } from "../drivers/profile.js";
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
  const kubernetes = createObjectClient(loadKubeConfig(opts.config.kubernetes.apiKubeconfig), {
    timeoutMs: opts.config.kubernetes.requestTimeoutMs,
    limiter,
  });
  opts.metrics?.countKubernetesRequests(kubernetes.counter);
  const drivers = createTenantDrivers(kubernetes, driverProfileOf(opts.config, binding));
  if (binding !== null) {
    try {
      const cluster = preprovisionedClusterOf(kubernetes);
      const missing = await apiGrantFailuresAtStartup(cluster, opts.config, binding);
      if (missing.length > 0) opts.logger.warn(missingGrantsWarning("api", binding, missing));
    } catch (err) {
      kubernetes.close();
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
    kubernetes.close();
    throw err;
  }
  const server = await startApiServer({
    db: opts.db,
    policyCache,
    auth: auth.runtime,
    externalProviders: external.providers,
    drivers,
    ...(binding === null && opts.config.drivers.compute === "kubernetes"
      ? { markedNamespaces: markedNamespacesOf(kubernetes) }
      : {}),
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
    kubernetes.close();
    await policyCache.close();
    throw err;
  });
  return {
    ...server,
    async close() {
      await server.close();
      kubernetes.close();
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
    const probe = createObjectClient(loadKubeConfig(opts.config.kubernetes.kubeconfig), {
      timeoutMs: opts.config.kubernetes.requestTimeoutMs,
      limiter,
    });
    try {
      const cluster = preprovisionedClusterOf(probe);
      const missing = await verifyPreprovisionedNamespaceAtStartup(cluster, opts.config, binding);
      if (missing.length > 0) opts.logger.warn(missingGrantsWarning("worker", binding, missing));
    } finally {
      probe.close();
    }
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
  const compute = await createComputeRuntime(
    opts.config,
    binding,
    (c) => watches.wrap(c),
    (tenantId) => agentIdsOf(opts.db, tenantId),
    limiter,
  );
  if (binding !== null) {
    try {
      await rebindPreprovisionedAtStartup({
        db: opts.db,
        compute: compute.driver,
        binding,
        logger: opts.logger,
      });
    } catch (err) {
      compute.close();
      await watches.stop();
      throw err;
    }
  }
  if (compute.requests !== undefined) opts.metrics?.countKubernetesRequests(compute.requests);
  const worker = await startWorker({
    // Agent workloads run on the bundled Kubernetes Compute Driver (drivers.md §4).
    ...(compute.workloads !== undefined
      ? { agents: { queue: agentWorkQueue(opts.config), workloads: compute.workloads } }
      : {}),
    db: opts.db,
    queue,
    compute: compute.driver,
    ...(compute.events !== undefined ? { events: compute.events } : {}),
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
    binding === null && compute.marked !== undefined
      ? startOrphanScan({
          db: opts.db,
          marked: compute.marked,
          everyMs: opts.config.worker.resyncSeconds * 1_000,
          logger: opts.logger,
          ...(compute.events !== undefined ? { events: compute.events } : {}),
          ...(opts.metrics !== undefined
            ? { onScan: (counts) => opts.metrics?.orphanNamespaces(counts) }
            : {}),
        })
      : null;
  return {
    async stop() {
      await orphans?.stop();
      await worker.stop();
      await watches.stop();
      compute.close();
    },
  };
}
