import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ComputeSelection } from "../services/compute-selection.js";
import type { InstallationConfig } from "../config/installation-config.js";
import type { ComputeDriver } from "../drivers/compute.js";
import {
  createObjectClient,
  loadKubeConfig,
  type RequestCounter,
  type RequestLimiter,
} from "../drivers/kubernetes/client/index.js";
import type { ObjectClient } from "../drivers/kubernetes/client/index.js";
import { createDriverSet, type AgentIdLookup } from "../drivers/factory.js";
import { driverProfileOf } from "../drivers/profile.js";
import type { WorkloadDriver } from "../drivers/workloads.js";
import { createOpenShellGateway } from "../drivers/openshell/gateway-client.js";
import type { PreprovisionedBinding } from "../domain/preprovisioned/binding.js";
import { markedNamespacesOf, type MarkedNamespaces } from "../drivers/marked-namespaces.js";
import type { EventRecorder } from "../drivers/events.js";
import { recordNamespaceEvent } from "../drivers/kubernetes/events.js";

/** What the API needs to know of the Compute selection. */
export function computeSelectionOf(config: InstallationConfig): ComputeSelection {
  const compute = config.drivers.compute;
  return compute === "kubernetes"
    ? { source: "bundled", name: "kubernetes" }
    : { source: "installed", module: compute.module };
}

/**
 * The contract of an installed Compute Driver module: it exports `createComputeDriver`, which
 * receives the validated Installation configuration and returns a `ComputeDriver`.
 */
export interface ComputeDriverModule {
  createComputeDriver(config: InstallationConfig): ComputeDriver | Promise<ComputeDriver>;
}

function isDriverModule(m: unknown): m is ComputeDriverModule {
  return (
    typeof m === "object" &&
    m !== null &&
    "createComputeDriver" in m &&
    typeof m.createComputeDriver === "function"
  );
}

export interface ComputeRuntime {
  readonly driver: ComputeDriver;
  /** The bundled driver's workload side (absent for installed modules: no Agent workloads). */
  readonly workloads?: WorkloadDriver;
  /** The Kubernetes request counter of the bundled driver (absent for installed modules). */
  readonly requests?: RequestCounter;
  /** Best-effort Events on tenant namespaces (bundled driver only). */
  readonly events?: EventRecorder;
  /** The tenant-labelled namespaces, through the watch caches (bundled driver only). */
  readonly marked?: MarkedNamespaces;
  close(): void;
}

/**
 * Builds the selected Compute Driver: the bundled Kubernetes one (credentials from the
 * configured kubeconfig, else the default chain: $KUBECONFIG, ~/.kube/config, in-cluster), or
 * an installed module loaded by package name or path.
 */
export async function createComputeRuntime(
  config: InstallationConfig,
  binding: PreprovisionedBinding | null = null,
  /** The bundled driver's reads go through this (the worker's watch caches); default as is. */
  readsVia: (client: ObjectClient) => ObjectClient = (c) => c,
  agentIds?: AgentIdLookup,
  /** The process's Kubernetes request budget; absent: unlimited. */
  limiter?: RequestLimiter,
): Promise<ComputeRuntime> {
  const selected = config.drivers.compute;
  if (selected === "kubernetes") {
    const direct = createObjectClient(loadKubeConfig(config.kubernetes.kubeconfig), {
      timeoutMs: config.kubernetes.requestTimeoutMs,
      limiter,
    });
    const client = readsVia(direct);
    const gateway =
      config.drivers.sandbox === "openshell" && config.openshell !== null
        ? createOpenShellGateway(config.openshell)
        : null;
    // Agent workloads run on the bundled driver, with their own direct client (drivers.md §4).
    const workloadClient = createObjectClient(loadKubeConfig(config.kubernetes.kubeconfig), {
      timeoutMs: config.kubernetes.requestTimeoutMs,
      limiter,
    });
    const drivers = createDriverSet({
      config,
      profile: driverProfileOf(config, binding),
      client,
      workloadClient,
      sandbox: gateway,
      ...(agentIds !== undefined ? { agentIds } : {}),
    });
    return {
      driver: drivers.compute,
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
  const specifier =
    selected.module.startsWith(".") || isAbsolute(selected.module)
      ? pathToFileURL(resolve(selected.module)).href
      : selected.module;
  const loaded: unknown = await import(specifier);
  if (!isDriverModule(loaded)) {
    throw new Error(
      `drivers.compute: module ${selected.module} does not export createComputeDriver(config)`,
    );
  }
  return { driver: await loaded.createComputeDriver(config), close: () => undefined };
}
