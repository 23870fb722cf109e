/**
 * The one place that picks every bundled Driver implementation, in the spirit of kysely's
 * `Dialect`: from the validated configuration and the process's profile it builds the whole
 * set — Compute (with the Sandbox Driver's namespace hook), Configuration, Secret and
 * workload Drivers — and callers receive only the ports. The profile is passed in, never
 * looked up: no Driver can be built without one.
 */
import type { InstallationConfig } from "../config/installation-config.js";
import type { NamespaceId } from "../domain/placement/ids.js";
import type { ComputeDriver, NamespaceHook } from "./compute.js";
import type { ConfigurationDriver } from "./configurations.js";
import type { ObjectClient } from "./kubernetes/client/index.js";
import type { PreprovisionedProfile } from "./kubernetes/compute/context.js";
import { KubernetesComputeDriver } from "./kubernetes/compute/driver.js";
import type { ClaimantIndex } from "./kubernetes/tenant/claimant-index.js";
import { KubernetesConfigurationDriver } from "./kubernetes/tenant/configuration-driver.js";
import { KubernetesSecretDriver } from "./kubernetes/tenant/secret-driver.js";
import { KubernetesWorkloadDriver } from "./kubernetes/workloads/driver.js";
import type { OpenShellGateway } from "./openshell/gateway-client.js";
import { declaredPolicies } from "./openshell/manifests.js";
import { OpenShellNamespaceHook } from "./openshell/namespace-hook.js";
import type { DriverProfile } from "./profile.js";
import type { SecretDriver } from "./secrets.js";
import type { WorkloadDriver } from "./workloads.js";

/** The IDs of a tenant's existing Agents (the worker reads them from the database). */
export type AgentIdLookup = (tenantId: NamespaceId) => Promise<readonly string[]>;

/** For callers without a database: no Agent exists, so no `agent-egress-…` is admitted. */
const noAgents: AgentIdLookup = () => Promise.resolve([]);

export interface DriverSetOptions {
  readonly config: InstallationConfig;
  readonly profile: DriverProfile;
  /** The process's own identity (`occ-worker` or `occ-api`); the worker's reads may be cached. */
  readonly client: ObjectClient;
  /**
   * The workload Driver's client; default `client`. The worker gives it a direct one, so
   * workload passes read the API server rather than its watch caches.
   */
  readonly workloadClient?: ObjectClient;
  /** The OpenShell gateway: set → the Compute Driver runs the OpenShell namespace hook. */
  readonly sandbox?: OpenShellGateway | null;
  /** Extra namespace hooks run after the Sandbox Driver's (tests). */
  readonly hooks?: readonly NamespaceHook[];
  /** The tenant's Agents, for the preprovisioned seal; default none. */
  readonly agentIds?: AgentIdLookup;
}

/** Every bundled Driver, as ports. */
export interface DriverSet {
  readonly compute: ComputeDriver;
  readonly configurations: ConfigurationDriver;
  readonly secrets: SecretDriver;
  readonly workloads: WorkloadDriver;
}

/** Builds the bundled Kubernetes Driver set for `config` in `profile`. */
export function createDriverSet(o: DriverSetOptions): DriverSet {
  const { config, profile, client } = o;
  const sandbox =
    o.sandbox === undefined || o.sandbox === null
      ? []
      : [openshellNamespaceHook(client, o.sandbox, config, profile)];
  return {
    compute: new KubernetesComputeDriver({
      client,
      settings: config.compute,
      hooks: [...sandbox, ...(o.hooks ?? [])],
      preprovisioned: computeProfileOf(config, profile, o.agentIds ?? noAgents),
      tenantRoleBindings: profile.kind === "normal" ? config.kubernetes.tenantRoleBindings : null,
    }),
    ...createTenantDrivers(client, profile),
    workloads: new KubernetesWorkloadDriver({
      client: o.workloadClient ?? client,
      profile,
      settings: config.compute,
      workloads: config.workloads,
      egressAuthority: config.egressAuthority,
    }),
  };
}

/**
 * The part of the set the API uses: the Configuration and Secret Drivers on `client`; their
 * reads consult `index` (the API's claimant index), when given.
 */
export function createTenantDrivers(
  client: ObjectClient,
  profile: DriverProfile,
  index: ClaimantIndex | null = null,
): Pick<DriverSet, "configurations" | "secrets"> {
  return {
    configurations: new KubernetesConfigurationDriver(client, profile, index),
    secrets: new KubernetesSecretDriver(client, profile, index),
  };
}

/** The OpenShell Sandbox Driver's namespace hook, in `profile`. */
function openshellNamespaceHook(
  client: ObjectClient,
  gateway: OpenShellGateway,
  config: InstallationConfig,
  profile: DriverProfile,
): NamespaceHook {
  if (config.openshell === null) throw new Error("openshell hook without openshell settings");
  return new OpenShellNamespaceHook({
    client,
    gateway,
    settings: config.openshell,
    profile: profile.kind,
  });
}

/** The Compute Driver's view of the preprovisioned profile, `null` in the normal profile. */
function computeProfileOf(
  config: InstallationConfig,
  profile: DriverProfile,
  agentIds: AgentIdLookup,
): PreprovisionedProfile | null {
  if (profile.kind === "normal") return null;
  return {
    binding: profile.expected.binding,
    operatorNamespaceLabels: config.openshell?.operatorNamespaceLabels ?? {},
    declaredPolicies: declaredPolicies(config.openshell),
    egressAuthority: config.egressAuthority,
    agentIds,
  };
}
