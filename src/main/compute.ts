import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ComputeSelection } from "../api/compute-selection.js";
import type { InstallationConfig } from "../config/installation-config.js";
import type { ComputeDriver } from "../drivers/compute.js";
import {
  createObjectClient,
  loadKubeConfig,
  type RequestCounter,
} from "../drivers/kubernetes/client/index.js";
import type { ObjectClient } from "../drivers/kubernetes/client/index.js";
import { KubernetesComputeDriver } from "../drivers/kubernetes/compute/driver.js";
import type { PreprovisionedProfile } from "../drivers/kubernetes/compute/context.js";
import type { NamespaceHook } from "../drivers/compute.js";
import { declaredPolicies } from "../drivers/openshell/manifests.js";
import {
  createOpenShellGateway,
  type OpenShellGateway,
} from "../drivers/openshell/gateway-client.js";
import { OpenShellNamespaceHook } from "../drivers/openshell/namespace-hook.js";
import type { PreprovisionedBinding } from "../domain/preprovisioned/binding.js";
import { recordNamespaceEvent, type NamespaceEvent } from "../drivers/kubernetes/events.js";

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
  /** The Kubernetes request counter of the bundled driver (absent for installed modules). */
  readonly requests?: RequestCounter;
  /** Best-effort Events on tenant namespaces (bundled driver only). */
  readonly events?: (namespace: string, event: NamespaceEvent) => Promise<boolean>;
  close(): void;
}

/** The Compute Driver's view of the preprovisioned profile, `null` in the normal profile. */
export function preprovisionedProfileOf(
  config: InstallationConfig,
  binding: PreprovisionedBinding | null,
  agentIds: AgentIdLookup = noAgents,
): PreprovisionedProfile | null {
  if (binding === null) return null;
  return {
    binding,
    operatorNamespaceLabels: config.openshell?.operatorNamespaceLabels ?? {},
    declaredPolicies: declaredPolicies(config.openshell),
    egressAuthority: config.egressAuthority,
    agentIds,
  };
}

/** The IDs of a tenant's existing Agents (the worker reads them from the database). */
export type AgentIdLookup = (tenantId: string) => Promise<readonly string[]>;

/** For callers without a database: no Agent exists, so no `agent-egress-…` is admitted. */
const noAgents: AgentIdLookup = () => Promise.resolve([]);

/** The bundled Kubernetes Compute Driver for `config`, in the profile `binding` selects. */
export function bundledComputeDriver(
  client: ObjectClient,
  config: InstallationConfig,
  binding: PreprovisionedBinding | null,
  hooks: readonly NamespaceHook[] = [],
  agentIds?: AgentIdLookup,
): KubernetesComputeDriver {
  return new KubernetesComputeDriver({
    client,
    settings: config.compute,
    hooks,
    preprovisioned: preprovisionedProfileOf(config, binding, agentIds),
    tenantRoleBindings: binding === null ? config.kubernetes.tenantRoleBindings : null,
  });
}

/** The OpenShell Sandbox Driver's namespace hook, in the profile `binding` selects. */
export function openshellHook(
  client: ObjectClient,
  gateway: OpenShellGateway,
  config: InstallationConfig,
  binding: PreprovisionedBinding | null,
): NamespaceHook {
  if (config.openshell === null) throw new Error("openshell hook without openshell settings");
  return new OpenShellNamespaceHook({
    client,
    gateway,
    settings: config.openshell,
    profile: binding === null ? "normal" : "preprovisioned",
  });
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
): Promise<ComputeRuntime> {
  const selected = config.drivers.compute;
  if (selected === "kubernetes") {
    const direct = createObjectClient(loadKubeConfig(config.kubernetes.kubeconfig), {
      timeoutMs: config.kubernetes.requestTimeoutMs,
    });
    const client = readsVia(direct);
    const gateway =
      config.drivers.sandbox === "openshell" && config.openshell !== null
        ? createOpenShellGateway(config.openshell)
        : null;
    const hooks = gateway === null ? [] : [openshellHook(client, gateway, config, binding)];
    const driver = bundledComputeDriver(client, config, binding, hooks, agentIds);
    return {
      driver,
      requests: client.counter,
      events: (namespace, event) => recordNamespaceEvent(direct, namespace, event),
      close: () => {
        gateway?.close();
        direct.close();
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
