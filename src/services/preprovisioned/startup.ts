/**
 * Startup of the API and the worker under the preprovisioned profile (preprovisioned.md §2).
 *
 * With `OCC_PREPROVISIONED_NAMESPACE` set, the Installation must be the closed single-cluster
 * OpenShell profile the seed describes; anything else stops startup with the seed's exact
 * sentence. Without it, a configuration asking for an execution cluster is refused as well:
 * this release has no execution cluster support, and ignoring the key would be silent.
 */
import { ConfigurationError, type InstallationConfig } from "../../config/installation-config.js";
import {
  PREPROVISIONED_ENV,
  parsePreprovisionedBinding,
  type PreprovisionedBinding,
} from "../../domain/preprovisioned/binding.js";
import { currentManagedName } from "../../domain/placement/naming.js";
import {
  PREPROVISIONED_MESSAGES,
  preprovisionedNamespaceFailures,
  type FailedRequirement,
} from "../../domain/preprovisioned/namespace.js";
import type { RbacSubject } from "../../domain/placement/k8s-objects.js";
import type { PreprovisionedCluster } from "../../drivers/preprovisioned-cluster.js";
import { preprovisionedExpectationOf } from "../../drivers/profile.js";
import { err, ok, type Result } from "../../domain/input/result.js";

/** The operator-facing startup messages, verbatim where the seed states them. */
export const STARTUP_MESSAGES = {
  /** Seed 001, "Set the value". */
  preprovisionedPrerequisites:
    "A preprovisioned Namespace requires single-cluster bundled Kubernetes and OpenShell Drivers with Credential Proxy and gateway routing.",
  executionClusterUnsupported:
    "executionCluster.enabled: true is not supported by this release: OCC runs workloads only in the cluster it controls; set executionCluster.enabled: false.",
  openshellSettingsMissing:
    "drivers.sandbox: openshell needs the openshell settings (endpoint, gateway)",
} as const;

/** One unmet prerequisite: the key at fault and what it must be. */
export interface UnmetPrerequisite {
  readonly key: string;
  readonly fix: string;
}

/**
 * The §2 prerequisites of the preprovisioned profile that `config` does not meet, each naming
 * its key: the bundled Kubernetes Compute and Configuration Drivers, the OpenShell Sandbox
 * Driver with a configured OpenShell backend, Compute gateway routing, no execution cluster,
 * a Credential Proxy (egress authority; this product has no OpenShell Git transport), and
 * password sign-in for everyone with no external sign-in provider.
 */
export function unmetPrerequisites(config: InstallationConfig): UnmetPrerequisite[] {
  const unmet: UnmetPrerequisite[] = [];
  if (config.drivers.compute !== "kubernetes") {
    unmet.push({ key: "drivers.compute", fix: "the bundled kubernetes driver" });
  }
  if (config.drivers.configuration !== "kubernetes") {
    unmet.push({ key: "drivers.configuration", fix: "the bundled kubernetes driver" });
  }
  if (config.drivers.sandbox !== "openshell") {
    unmet.push({ key: "drivers.sandbox", fix: "openshell" });
  }
  if (config.openshell === null) {
    unmet.push({ key: "openshell", fix: "the OpenShell backend (endpoint, gateway)" });
  }
  if (config.compute.gatewayRouting === null) {
    unmet.push({ key: "network.gatewayRouting", fix: "the Compute gateway routing" });
  }
  if (config.executionCluster.enabled) {
    unmet.push({ key: "executionCluster.enabled", fix: "false" });
  }
  if (config.egressAuthority === null) {
    unmet.push({
      key: "network.egressAuthority",
      fix: "the Credential Proxy — the seed's alternative, the OpenShell Git transport (chart value openshellGit), is not supported by this release",
    });
  }
  return [...unmet, ...unmetSignIn(config)];
}

/**
 * The seed's sign-in conditions of the profile ("auth.passwordSignIn: all, with auth.google and
 * auth.oidc and agentNativeAdmin disabled"), in the chart's words (templates/_auth.tpl). A
 * provider is enabled in the configuration when its section is present. agentNativeAdmin has
 * no configuration key: only the chart can refuse it.
 */
function unmetSignIn(config: InstallationConfig): UnmetPrerequisite[] {
  const unmet: UnmetPrerequisite[] = [];
  if (config.auth.passwordSignIn !== "all") {
    unmet.push({ key: "auth.passwordSignIn", fix: `all, not ${config.auth.passwordSignIn}` });
  }
  for (const provider of ["google", "oidc"] as const) {
    if (config.auth[provider] !== null) {
      unmet.push({
        key: `auth.${provider}`,
        fix: `auth.${provider} disabled: remove the auth.${provider} section (chart: set auth.${provider}.enabled: false)`,
      });
    }
  }
  return unmet;
}

/** The seed's exact sentence, then every unmet key. */
export function prerequisitesRefusal(unmet: readonly UnmetPrerequisite[]): string {
  return `${STARTUP_MESSAGES.preprovisionedPrerequisites} Not met: ${unmet
    .map((u) => `${u.key} (needs ${u.fix})`)
    .join("; ")}.`;
}

/**
 * The §2 prerequisites of the preprovisioned profile. Any miss → the seed's exact sentence,
 * followed by each key at fault.
 */
export function checkPreprovisionedPrerequisites(config: InstallationConfig): Result<void, string> {
  const unmet = unmetPrerequisites(config);
  return unmet.length === 0 ? ok(undefined) : err(prerequisitesRefusal(unmet));
}

/**
 * Every startup refusal of the configuration for the given binding (`null`: the normal
 * profile): the preprovisioned prerequisites, or, in the normal profile, an execution cluster
 * or the OpenShell Sandbox Driver without its settings.
 */
export function checkStartupConfiguration(
  config: InstallationConfig,
  binding: PreprovisionedBinding | null,
): Result<void, string> {
  if (binding !== null) return checkPreprovisionedPrerequisites(config);
  if (config.executionCluster.enabled) return err(STARTUP_MESSAGES.executionClusterUnsupported);
  if (config.drivers.sandbox === "openshell" && config.openshell === null) {
    return err(STARTUP_MESSAGES.openshellSettingsMissing);
  }
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

/** The default ServiceAccounts of the worker and the API (as `occ preprovisioned render`). */
export function defaultSubjects(config: InstallationConfig): {
  readonly worker: RbacSubject;
  readonly api: RbacSubject;
} {
  const namespace = config.kubernetes.controllerNamespace;
  return {
    worker: { kind: "ServiceAccount", name: "occ-worker", namespace },
    api: { kind: "ServiceAccount", name: "occ-api", namespace },
  };
}

/**
 * The tenant RoleBindings as the worker sees them: its own (worker tenant role and, with
 * OpenShell, the OpenShell tenant role) by its effective rules, and the API's by name.
 */
export async function workerGrantFailures(
  cluster: PreprovisionedCluster,
  config: InstallationConfig,
  namespace: string,
): Promise<FailedRequirement[]> {
  const subjects = defaultSubjects(config);
  const own = await cluster.grantFailures(
    namespace,
    config.openshell === null ? ["worker"] : ["worker", "openshell"],
    subjects.worker,
  );
  const api = await cluster.apiBindingFailure(namespace, subjects.api);
  return api === null ? own : [...own, api];
}

/**
 * The worker's startup verification (§2): `get` the bound namespace by name and check every
 * §3 requirement — a mismatch stops startup with the list of EVERY failing requirement with its
 * fix, not just the first — then the tenant RoleBindings ({@link workerGrantFailures}).
 *
 * A missing RoleBinding does not stop the worker (seed 001: "Tenant access is unchanged"; seed
 * 000: provisioning stays pending until the operator grants it, with no restart): the failures
 * are returned for the caller to log as a warning, with the manifest that fixes each.
 *
 * @throws StartupRefusedError on a namespace mismatch; a Kubernetes failure propagates as is.
 */
export async function verifyPreprovisionedNamespaceAtStartup(
  cluster: PreprovisionedCluster,
  config: InstallationConfig,
  binding: PreprovisionedBinding,
): Promise<FailedRequirement[]> {
  const name = currentManagedName(binding.namespaceId);
  const namespace = await cluster.namespace(name);
  const failures = preprovisionedNamespaceFailures(
    namespace,
    preprovisionedExpectationOf(config, binding),
  );
  if (failures.length > 0) {
    throw new StartupRefusedError(
      [
        `${PREPROVISIONED_MESSAGES.namespaceMismatch} Namespace ${name}:`,
        ...failures.map(requirementLine),
      ].join("\n"),
    );
  }
  return workerGrantFailures(cluster, config, name);
}

/**
 * The API's startup check of its own tenant RoleBinding in the bound namespace (its effective
 * rules; the API may `get` the namespace and use Secrets and ConfigMaps in it). Missing, the
 * API still starts — its Configuration and Secret operations answer 503 until the operator
 * grants it — and the caller logs the returned failures as a warning.
 */
export function apiGrantFailuresAtStartup(
  cluster: PreprovisionedCluster,
  config: InstallationConfig,
  binding: PreprovisionedBinding,
): Promise<FailedRequirement[]> {
  const name = currentManagedName(binding.namespaceId);
  return cluster.grantFailures(name, ["api"], defaultSubjects(config).api);
}

/** What each process goes on doing without a tenant RoleBinding, for the startup warning. */
const UNTIL_GRANTED = {
  worker:
    "the worker keeps running: the Namespace stays pending (KUBERNETES_PERMISSION_PENDING) and is placed by itself once they are granted, no restart needed",
  api: "the API keeps running: Configuration and Secret operations answer 503 (KUBERNETES_PERMISSION_MISSING) until it is granted, no restart needed",
} as const;

/**
 * The startup warning for missing tenant RoleBindings: each with the RoleBinding manifest that
 * fixes it, then what the process does meanwhile. The manifests hold no secret.
 */
export function missingGrantsWarning(
  process: keyof typeof UNTIL_GRANTED,
  binding: PreprovisionedBinding,
  grants: readonly FailedRequirement[],
): string {
  const name = currentManagedName(binding.namespaceId);
  return [
    `The tenant RoleBindings of namespace ${name} are missing:`,
    ...grants.map(requirementLine),
    `Until then ${UNTIL_GRANTED[process]}.`,
  ].join("\n");
}

function requirementLine(f: FailedRequirement): string {
  return `  - ${f.requirement}: ${f.fix.replace(/\n/g, "\n      ")}`;
}
