/**
 * The one runtime factory: from the validated configuration, the process's role and its
 * profile, it builds the process's Kubernetes clients (its identity's kubeconfig, its request
 * budget), every Driver on them (`factory.ts`), the `EventRecorder` port and the request
 * counter — or loads an installed Compute Driver module. Processes receive ports only, and
 * `close` ends every client it made.
 */
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { InstallationConfig } from "../config/installation-config.js";
import type { PreprovisionedBinding } from "../domain/preprovisioned/binding.js";
import type { ComputeDriver } from "./compute.js";
import type { EventRecorder } from "./events.js";
import {
  createDriverSet,
  createTenantDrivers,
  type AgentIdLookup,
  type DriverSet,
} from "./factory.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
  type RequestCounter,
  type RequestLimiter,
} from "./kubernetes/client/index.js";
import { recordNamespaceEvent } from "./kubernetes/events.js";
import {
  startClaimantIndex,
  type RunningClaimantIndex,
} from "./kubernetes/tenant/claimant-index.js";
import type { WatchRestartReason } from "./kubernetes/watch/reflector.js";
import { markedNamespacesOf, type MarkedNamespaces } from "./marked-namespaces.js";
import { namespaceInspectorOf, type NamespaceInspector } from "./namespace-inspector.js";
import { driverProfileOf } from "./profile.js";
import type { WorkloadDriver } from "./workloads.js";

/**
 * The contract of an installed Compute Driver module: it exports `createComputeDriver`, which
 * receives the validated Installation configuration and returns a `ComputeDriver`.
 */
export interface ComputeDriverModule {
  createComputeDriver(config: InstallationConfig): ComputeDriver | Promise<ComputeDriver>;
}

export interface RuntimeOptions {
  readonly config: InstallationConfig;
  /** The preprovisioned binding the process runs in; `null` in the normal profile. */
  readonly binding?: PreprovisionedBinding | null;
  /** The process's Kubernetes request budget; absent: unlimited. */
  readonly limiter?: RequestLimiter;
  /** Told each time the API's claimant index opens its watch again (metrics, log). */
  readonly onWatchRestart?: (reason: WatchRestartReason, err?: unknown) => void;
}

/** What the API runs on: its `occ-api` identity (`apiKubeconfig`). */
export interface ApiRuntime {
  readonly drivers: Pick<DriverSet, "configurations" | "secrets">;
  /** The tenant-labelled namespaces (normal profile with the bundled Compute Driver). */
  readonly marked: MarkedNamespaces | null;
  /** The console's read-only inspection of operator namespaces (same condition as `marked`). */
  readonly inspector: NamespaceInspector | null;
  /** The identity's client itself, for the startup checks of its grants. */
  readonly client: ObjectClient;
  readonly requests: RequestCounter;
  /** The claimant index the tenant Drivers' reads consult (same condition as `marked`). */
  readonly claimants: RunningClaimantIndex | null;
  /** Ends every client and the claimant index's watch. */
  close(): Promise<void>;
}

/** What the worker runs on: its identity (`kubeconfig`), or an installed Compute module. */
export interface WorkerRuntime {
  readonly compute: ComputeDriver;
  /** The bundled driver's workload side (`null` for installed modules: no Agent workloads). */
  readonly workloads: WorkloadDriver | null;
  /** Best-effort Events on tenant namespaces (bundled driver only). */
  readonly events: EventRecorder | null;
  /** The tenant-labelled namespaces, through the watch caches (bundled driver only). */
  readonly marked: MarkedNamespaces | null;
  /** The Kubernetes request counter of the bundled driver (`null` for installed modules). */
  readonly requests: RequestCounter | null;
  close(): void;
}

export interface WorkerRuntimeOptions extends RuntimeOptions {
  /** The bundled driver's reads go through this (the worker's watch caches); default as is. */
  readonly readsVia?: (client: ObjectClient) => ObjectClient;
  /** The tenant's Agents, for the preprovisioned seal. */
  readonly agentIds?: AgentIdLookup;
}

/** A client on `kubeconfig` (default chain when `null`) with the process's budget. */
function clientOf(
  o: RuntimeOptions,
  kubeconfig: Parameters<typeof loadKubeConfig>[0],
): ObjectClient {
  return createObjectClient(loadKubeConfig(kubeconfig), {
    timeoutMs: o.config.kubernetes.requestTimeoutMs,
    limiter: o.limiter,
  });
}

/**
 * Runs `use` with a short-lived client on the worker's identity, closed after: the startup
 * checks made before the runtime (and its watch caches) exist.
 */
export async function withWorkerClient<T>(
  o: RuntimeOptions,
  use: (client: ObjectClient) => Promise<T>,
): Promise<T> {
  const client = clientOf(o, o.config.kubernetes.kubeconfig);
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

/**
 * The API's runtime: the Configuration and Secret Drivers on its own identity and, in the
 * normal profile with the bundled Compute Driver, the claimant index their reads consult
 * (its watch started here, its requests counted with the client's).
 */
export function createApiRuntime(o: RuntimeOptions): ApiRuntime {
  const binding = o.binding ?? null;
  const kubeconfig = loadKubeConfig(o.config.kubernetes.apiKubeconfig);
  const client = clientOf(o, o.config.kubernetes.apiKubeconfig);
  const normal = binding === null && o.config.drivers.compute === "kubernetes";
  const claimants = normal
    ? startClaimantIndex({
        kubeconfig,
        counter: client.counter,
        timeoutMs: o.config.kubernetes.requestTimeoutMs,
        ...(o.limiter !== undefined ? { limiter: o.limiter } : {}),
        ...(o.onWatchRestart !== undefined ? { onRestart: o.onWatchRestart } : {}),
      })
    : null;
  return {
    drivers: createTenantDrivers(client, driverProfileOf(o.config, binding), claimants),
    marked: normal ? markedNamespacesOf(client) : null,
    inspector: normal ? namespaceInspectorOf(client, o.config) : null,
    client,
    requests: client.counter,
    claimants,
    close: async () => {
      client.close();
      await claimants?.stop();
    },
  };
}

/**
 * The worker's runtime: the bundled Kubernetes Driver set (credentials from the configured
 * kubeconfig, else the default chain: $KUBECONFIG, ~/.kube/config, in-cluster), or an
 * installed module loaded by package name or path.
 */
export async function createWorkerRuntime(o: WorkerRuntimeOptions): Promise<WorkerRuntime> {
  const { config } = o;
  const selected = config.drivers.compute;
  if (selected !== "kubernetes") {
    const compute = await loadComputeModule(config, selected.module);
    const none = { workloads: null, events: null, marked: null, requests: null };
    return { compute, ...none, close: () => undefined };
  }
  const direct = clientOf(o, config.kubernetes.kubeconfig);
  const client = o.readsVia === undefined ? direct : o.readsVia(direct);
  // Loaded only when configured: an Installation without the OpenShell gateway never loads
  // gRPC and its protobuf loader (test/unit/lint/startup-imports.test.ts).
  const gateway =
    config.drivers.sandbox === "openshell" && config.openshell !== null
      ? (await import("./openshell/gateway-client.js")).createOpenShellGateway(config.openshell)
      : null;
  // Agent workloads run on the bundled driver, with their own direct client (drivers.md §4).
  const workloadClient = clientOf(o, config.kubernetes.kubeconfig);
  const drivers = createDriverSet({
    config,
    profile: driverProfileOf(config, o.binding ?? null),
    client,
    workloadClient,
    sandbox: gateway,
    ...(o.agentIds !== undefined ? { agentIds: o.agentIds } : {}),
  });
  return {
    compute: drivers.compute,
    workloads: drivers.workloads,
    requests: client.counter,
    events: (namespace, event) => recordNamespaceEvent(direct, namespace, event),
    marked: markedNamespacesOf(client),
    close: () => {
      gateway?.close();
      direct.close();
      workloadClient.close();
    },
  };
}

function isDriverModule(m: unknown): m is ComputeDriverModule {
  return (
    typeof m === "object" &&
    m !== null &&
    "createComputeDriver" in m &&
    typeof m.createComputeDriver === "function"
  );
}

/** An installed Compute Driver module, by package name or path. */
async function loadComputeModule(
  config: InstallationConfig,
  module: string,
): Promise<ComputeDriver> {
  const specifier =
    module.startsWith(".") || isAbsolute(module) ? pathToFileURL(resolve(module)).href : module;
  const loaded: unknown = await import(specifier);
  if (!isDriverModule(loaded)) {
    throw new Error(
      `drivers.compute: module ${module} does not export createComputeDriver(config)`,
    );
  }
  return loaded.createComputeDriver(config);
}
