/**
 * Startup of the API and the worker under the preprovisioned profile (preprovisioned.md §2).
 *
 * With `OCC_PREPROVISIONED_NAMESPACE` set, the Installation must be the closed single-cluster
 * OpenShell profile the seed describes; anything else stops startup with the seed's exact
 * sentence. Without it, a configuration asking for an execution cluster is refused as well:
 * this release has no execution cluster support, and ignoring the key would be silent.
 */
import { ConfigurationError, type InstallationConfig } from "../config/installation-config.js";
import {
  PREPROVISIONED_ENV,
  parsePreprovisionedBinding,
  type PreprovisionedBinding,
} from "../domain/preprovisioned-binding.js";
import type { K8sNamespace } from "../domain/k8s-objects.js";
import { currentManagedName } from "../domain/naming.js";
import {
  PREPROVISIONED_MESSAGES,
  preprovisionedNamespaceFailures,
  type PreprovisionedExpectation,
} from "../domain/preprovisioned-namespace.js";
import type { ObjectClient } from "../drivers/kubernetes/client/index.js";
import { err, ok, type Result } from "../domain/result.js";

/** The operator-facing startup messages, verbatim where the seed states them. */
export const STARTUP_MESSAGES = {
  /** Seed 001, "Set the value". */
  preprovisionedPrerequisites:
    "A preprovisioned Namespace requires single-cluster bundled Kubernetes and OpenShell Drivers with Credential Proxy and gateway routing.",
  executionClusterUnsupported:
    "executionCluster.enabled: true is not supported by this release: OCC runs workloads only in the cluster it controls; set executionCluster.enabled: false.",
} as const;

/**
 * The §2 prerequisites of the preprovisioned profile: the bundled Kubernetes Compute and
 * Configuration Drivers, the OpenShell Sandbox Driver with a configured OpenShell backend,
 * Compute gateway routing, no execution cluster, and a Credential Proxy (egress authority;
 * this product has no OpenShell Git transport). Any miss → the seed's exact sentence.
 */
export function checkPreprovisionedPrerequisites(config: InstallationConfig): Result<void, string> {
  const satisfied =
    config.drivers.compute === "kubernetes" &&
    config.drivers.configuration === "kubernetes" &&
    config.drivers.sandbox === "openshell" &&
    config.openshell !== null &&
    config.compute.gatewayRouting !== null &&
    !config.executionCluster.enabled &&
    config.egressAuthority !== null;
  return satisfied ? ok(undefined) : err(STARTUP_MESSAGES.preprovisionedPrerequisites);
}

/**
 * Every startup refusal of the configuration for the given binding (`null`: the normal
 * profile): the preprovisioned prerequisites, or, in the normal profile, an execution cluster.
 */
export function checkStartupConfiguration(
  config: InstallationConfig,
  binding: PreprovisionedBinding | null,
): Result<void, string> {
  if (binding !== null) return checkPreprovisionedPrerequisites(config);
  if (config.executionCluster.enabled) return err(STARTUP_MESSAGES.executionClusterUnsupported);
  return ok(undefined);
}

/**
 * Reads `OCC_PREPROVISIONED_NAMESPACE` from `env`: `null` when unset or empty (the normal
 * profile), the binding when valid.
 *
 * @throws ConfigurationError naming every problem when the value is malformed.
 */
export function preprovisionedBindingFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): PreprovisionedBinding | null {
  const raw = env[PREPROVISIONED_ENV];
  if (raw === undefined || raw === "") return null;
  const parsed = parsePreprovisionedBinding(raw);
  if (!parsed.ok) throw new ConfigurationError(PREPROVISIONED_ENV, parsed.error);
  return parsed.value;
}

/** Thrown when startup must stop; the message is the operator-facing sentence. */
export class StartupRefusedError extends Error {
  override readonly name = "StartupRefusedError";
}

/**
 * The whole configuration side of startup for the API and the worker: reads the binding from
 * `env` and refuses the configuration per {@link checkStartupConfiguration}.
 *
 * @throws ConfigurationError for a malformed binding, StartupRefusedError for a refusal.
 */
export function startupProfile(
  config: InstallationConfig,
  env: Readonly<Record<string, string | undefined>>,
): PreprovisionedBinding | null {
  const binding = preprovisionedBindingFromEnv(env);
  const checked = checkStartupConfiguration(config, binding);
  if (!checked.ok) throw new StartupRefusedError(checked.error);
  return binding;
}

/** What the bound namespace must match, from the configuration and the binding. */
export function preprovisionedExpectationOf(
  config: InstallationConfig,
  binding: PreprovisionedBinding,
): PreprovisionedExpectation {
  return {
    binding,
    routing: config.compute.gatewayRouting,
    operatorNamespaceLabels: config.openshell?.operatorNamespaceLabels ?? {},
  };
}

/**
 * The worker's startup verification (§2): `get` the bound namespace by name and check every
 * §3 requirement. A mismatch stops startup with the seed's sentence and the list of EVERY
 * failing requirement with its fix, not just the first.
 *
 * @throws StartupRefusedError on any mismatch; a Kubernetes failure propagates as is.
 */
export async function verifyPreprovisionedNamespaceAtStartup(
  client: ObjectClient,
  config: InstallationConfig,
  binding: PreprovisionedBinding,
): Promise<void> {
  const name = currentManagedName(binding.namespaceId);
  const namespace = (await client.find<K8sNamespace>("Namespace", { name })) ?? null;
  const failures = preprovisionedNamespaceFailures(
    namespace,
    preprovisionedExpectationOf(config, binding),
  );
  if (failures.length === 0) return;
  throw new StartupRefusedError(
    [
      `${PREPROVISIONED_MESSAGES.namespaceMismatch} Namespace ${name}:`,
      ...failures.map((f) => `  - ${f.requirement}: ${f.fix}`),
    ].join("\n"),
  );
}
