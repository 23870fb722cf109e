import { readFile } from "node:fs/promises";
import { Value, type ValueError } from "@sinclair/typebox/value";
import { parse } from "yaml";
import {
  validateComputeSettings,
  type EgressAuthoritySetting,
  type WorkloadImages,
  type ComputeSettings,
  type ConfigurationProblem,
} from "../domain/index.js";
import { InstallationConfigSchema, type InstallationConfigFile } from "./installation-schema.js";
import { openshellGatewayProblems } from "./openshell-settings.js";
import { TEST_INSECURE_OIDC_ENV, validateAuthSection, type AuthSettings } from "./auth-settings.js";
import type { RbacSubject } from "../domain/placement/k8s-objects.js";
import type { RateLimit } from "../domain/input/token-bucket.js";
import { fieldOf, messageOf } from "../domain/input/unknowns.js";

export type DriverSelection = "kubernetes" | { readonly module: string };

/** The Credential Proxy: egress from Agent workloads goes only to these pods on `port`. */
export type EgressAuthority = EgressAuthoritySetting;

export type Manifest = Readonly<Record<string, unknown>>;

/** The OpenShell gateway connection and the operator-mode workspace declaration. */
export interface OpenShellSettings {
  readonly endpoint: string;
  readonly tlsRootFile: string | undefined;
  readonly tokenFile: string | undefined;
  readonly requestTimeoutMs: number;
  readonly workspaceMode: "operator";
  readonly operatorNamespaceLabels: Readonly<Record<string, string>>;
  readonly operatorWorkspaceResources: readonly Manifest[];
  readonly networkPolicyResources: readonly Manifest[];
}

/** What Agent workloads run (`workloads.*`), as the domain renders them. */
export type WorkloadSettings = WorkloadImages;

/** The identities the tenant roles are bound to in a managed namespace (`kubernetes.tenantRoleBindings`). */
export interface TenantRoleBindingSubjects {
  readonly worker: RbacSubject;
  readonly api: RbacSubject;
}

/**
 * The default Kubernetes request budgets (`kubernetes.rateLimit`). A resync served from the
 * worker's watch caches sends nothing for an unchanged tenant, and a relist is one LIST per
 * kind; what the bucket bounds is the worker falling back to direct reads (4 per tenant: 40,000
 * at 10,000 tenants, otherwise sent as fast as the slots go) and bulk provisioning (7 writes per
 * Namespace: 100/s is 14 Namespaces/s, 50,000 an hour). The API sends 1–3 requests per
 * Configuration or Secret call. client-go defaults to 5/10, controller-runtime to 20/30.
 */
export const DEFAULT_RATE_LIMITS = {
  worker: { qps: 100, burst: 200 },
  api: { qps: 100, burst: 200 },
} as const satisfies Readonly<Record<string, RateLimit>>;

/** The validated Installation configuration every process runs with. */
export interface InstallationConfig {
  readonly drivers: {
    readonly compute: DriverSelection;
    readonly configuration: DriverSelection;
    readonly secret: DriverSelection;
    readonly sandbox: "none" | "openshell";
  };
  readonly kubernetes: {
    readonly kubeconfig: string | undefined;
    /** The API's kubeconfig (`occ-api`); undefined → `kubeconfig`, then the default chain. */
    readonly apiKubeconfig: string | undefined;
    readonly controllerNamespace: string;
    readonly requestTimeoutMs: number;
    /** Each process's Kubernetes request budget (`kubernetes.rateLimit`). */
    readonly rateLimit: { readonly worker: RateLimit; readonly api: RateLimit };
    /** Set → the worker binds the tenant roles to these in the managed namespaces it creates. */
    readonly tenantRoleBindings: TenantRoleBindingSubjects | null;
  };
  readonly compute: ComputeSettings;
  /** `network.egressAuthority`, or null when Agent egress is not confined to a proxy. */
  readonly egressAuthority: EgressAuthority | null;
  readonly workloads: WorkloadSettings;
  /** `openshell`, or null when no OpenShell gateway is configured. */
  readonly openshell: OpenShellSettings | null;
  readonly executionCluster: { readonly enabled: boolean };
  /** How people sign in (`auth`). */
  readonly auth: AuthSettings;
  readonly worker: {
    readonly concurrency: number;
    readonly maxAttempts: number;
    readonly leaseSeconds: number;
    readonly convergenceDeadlineSeconds: number;
    /**
     * Preprovisioned profile only: how often the bound namespace is read again by `get` (its
     * RBAC grants no list/watch). The normal profile watches instead.
     */
    readonly pollSeconds: number;
    /**
     * The full resync (lifecycle.md §1): every this many seconds, jittered ±10 %, one pass is
     * queued for every live Namespace. Default 600.
     */
    readonly resyncSeconds: number;
  };
}

/** Raised with every problem at once; each message names the offending key. */
export class ConfigurationError extends Error {
  override readonly name = "ConfigurationError";
  constructor(
    readonly source: string,
    readonly problems: readonly ConfigurationProblem[],
  ) {
    super(
      `invalid Installation configuration (${source}):\n` +
        problems.map((p) => `  - ${p.message}`).join("\n"),
    );
  }
}

/** Development defaults: what `occ dev up` and an empty file give. */
export const DEFAULTS = {
  quota: { pods: "50", "requests.cpu": "8", "requests.memory": "16Gi", "limits.memory": "32Gi" },
  limits: { cpu: "1", memory: "1Gi" },
  requests: { cpu: "250m", memory: "256Mi" },
  dns: { namespace: "kube-system", podLabels: { "k8s-app": "kube-dns" } },
  gatewayPort: 18789,
  workloads: {
    gatewayImage: "ghcr.io/openclaw/openclaw:latest",
    harnessImage: "ghcr.io/openclaw/openclaw:latest",
    gatewayResources: { cpu: "500m", memory: "512Mi" },
    harnessResources: { cpu: "500m", memory: "512Mi" },
    gatewayStateSize: "1Gi",
    workspaceSize: "5Gi",
  },
} as const;

function cpuMemory(
  value: { cpu: unknown; memory: unknown } | undefined,
  fallback: { readonly cpu: string; readonly memory: string },
): { cpu: string; memory: string } {
  if (value === undefined) return { ...fallback };
  return { cpu: String(value.cpu), memory: String(value.memory) };
}

function keyOf(path: string): string {
  return path.replace(/^\//, "").split("/").join(".") || "(top level)";
}

/**
 * A union's own error ("Expected union value") says nothing useful; for a section that may be
 * `null` or an object, the object branch's errors name the key that is wrong.
 */
function leafErrors(error: ValueError): ValueError[] {
  if (error.errors.length === 0) return [error];
  const nested = error.errors
    .flatMap((branch) => [...branch])
    .filter((e) => fieldOf(e.schema, "type") !== "null")
    .flatMap(leafErrors);
  return nested.length === 0 ? [error] : nested;
}

/**
 * Validates a parsed configuration document: the shape (unknown keys, types) first, then the
 * Compute settings through the domain's rules (quantities, request ≤ limit). Defaults fill in
 * whatever is absent.
 */
export function validateInstallationConfig(doc: unknown, source: string): InstallationConfig {
  const input = doc ?? {};
  if (!Value.Check(InstallationConfigSchema, input)) {
    const problems = [...Value.Errors(InstallationConfigSchema, input)]
      .flatMap(leafErrors)
      // One problem per key: a missing key is also "not a string"; the first says it best.
      .filter((e, i, all) => all.findIndex((o) => o.path === e.path) === i)
      .map((e) => ({ key: keyOf(e.path), message: `${keyOf(e.path)}: ${e.message}` }));
    throw new ConfigurationError(source, problems);
  }
  const file: InstallationConfigFile = input;
  const ns = file.resources?.namespace;
  const net = file.network;
  const compute = validateComputeSettings({
    quota: ns?.quota ?? DEFAULTS.quota,
    containerLimits: ns?.limits ?? DEFAULTS.limits,
    containerRequests: ns?.requests ?? DEFAULTS.requests,
    dns: net?.dns ?? DEFAULTS.dns,
    gatewayPort: net?.gatewayPort ?? DEFAULTS.gatewayPort,
    gatewayRouting: net?.gatewayRouting ?? null,
    gatewayClients: net?.gatewayClients ?? [],
  });
  if (!compute.ok) throw new ConfigurationError(source, compute.error);
  // `drivers.sandbox: openshell` without an `openshell` block is refused at startup
  // (`preprovisioned-startup.ts`), where the preprovisioned profile's sentence applies.
  if (file.openshell != null) {
    const gateway = file.openshell.gateway;
    const problems = openshellGatewayProblems({
      operatorNamespaceLabels: gateway?.operatorNamespaceLabels ?? {},
      operatorWorkspaceResources: gateway?.operatorWorkspaceResources ?? [],
      networkPolicyResources: gateway?.networkPolicyResources ?? [],
    });
    if (problems.length > 0) throw new ConfigurationError(source, problems);
  }
  const auth = validateAuthSection(file.auth, process.env[TEST_INSECURE_OIDC_ENV] === "1");
  if (!auth.ok) throw new ConfigurationError(source, auth.error);
  return {
    drivers: {
      compute: file.drivers?.compute ?? "kubernetes",
      configuration: file.drivers?.configuration ?? "kubernetes",
      secret: file.drivers?.secret ?? "kubernetes",
      sandbox: file.drivers?.sandbox ?? "none",
    },
    kubernetes: {
      kubeconfig: file.kubernetes?.kubeconfig,
      apiKubeconfig: file.kubernetes?.apiKubeconfig ?? file.kubernetes?.kubeconfig,
      controllerNamespace: file.kubernetes?.controllerNamespace ?? "openclaw-system",
      requestTimeoutMs: file.kubernetes?.requestTimeoutMs ?? 10_000,
      rateLimit: {
        worker: file.kubernetes?.rateLimit?.worker ?? DEFAULT_RATE_LIMITS.worker,
        api: file.kubernetes?.rateLimit?.api ?? DEFAULT_RATE_LIMITS.api,
      },
      tenantRoleBindings: file.kubernetes?.tenantRoleBindings ?? null,
    },
    compute: compute.value,
    egressAuthority:
      net?.egressAuthority == null
        ? null
        : {
            namespace: net.egressAuthority.namespace,
            podLabels: net.egressAuthority.podLabels ?? {},
            port: net.egressAuthority.port,
            service: net.egressAuthority.service ?? "egress-authority",
          },
    workloads: {
      gatewayImage: file.workloads?.gatewayImage ?? DEFAULTS.workloads.gatewayImage,
      harnessImage: file.workloads?.harnessImage ?? DEFAULTS.workloads.harnessImage,
      gatewayResources: cpuMemory(
        file.workloads?.gatewayResources,
        DEFAULTS.workloads.gatewayResources,
      ),
      harnessResources: cpuMemory(
        file.workloads?.harnessResources,
        DEFAULTS.workloads.harnessResources,
      ),
      gatewayStateSize:
        file.workloads?.storage?.gatewayStateSize ?? DEFAULTS.workloads.gatewayStateSize,
      workspaceSize: file.workloads?.storage?.workspaceSize ?? DEFAULTS.workloads.workspaceSize,
      storageClassName: file.workloads?.storage?.storageClassName,
    },
    openshell:
      file.openshell == null
        ? null
        : {
            endpoint: file.openshell.endpoint,
            tlsRootFile: file.openshell.tlsRootFile,
            tokenFile: file.openshell.tokenFile,
            requestTimeoutMs: file.openshell.requestTimeoutMs ?? 10_000,
            workspaceMode: "operator",
            operatorNamespaceLabels: file.openshell.gateway?.operatorNamespaceLabels ?? {},
            operatorWorkspaceResources: file.openshell.gateway?.operatorWorkspaceResources ?? [],
            networkPolicyResources: file.openshell.gateway?.networkPolicyResources ?? [],
          },
    executionCluster: { enabled: file.executionCluster?.enabled ?? false },
    auth: auth.value,
    worker: {
      concurrency: file.worker?.concurrency ?? 4,
      maxAttempts: file.worker?.maxAttempts ?? 5,
      leaseSeconds: file.worker?.leaseSeconds ?? 15,
      convergenceDeadlineSeconds: file.worker?.convergenceDeadlineSeconds ?? 900,
      pollSeconds: file.worker?.pollSeconds ?? 60,
      resyncSeconds: file.worker?.resyncSeconds ?? 600,
    },
  };
}

/**
 * Reads and parses one YAML file; an unreadable file or invalid YAML is a ConfigurationError
 * naming the file. Shared by the Installation configuration and the Helm values reader.
 */
export async function readYamlFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new ConfigurationError(path, [
      { key: "(file)", message: `cannot read ${path}: ${messageOf(err)}` },
    ]);
  }
  try {
    return parse(text);
  } catch (err) {
    throw new ConfigurationError(path, [
      { key: "(file)", message: `not valid YAML: ${messageOf(err)}` },
    ]);
  }
}

/** Reads and validates `path` (YAML); without a path, the defaults. */
export async function loadInstallationConfig(path?: string): Promise<InstallationConfig> {
  if (path === undefined || path === "") return validateInstallationConfig({}, "defaults");
  return validateInstallationConfig(await readYamlFile(path), path);
}
