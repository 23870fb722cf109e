/**
 * The Installation configuration exactly as the chart renders it (`templates/_config.tpl`),
 * from the same values file `helm install -f` takes — so `occ preprovisioned render | verify |
 * values --values my-values.yaml` need no hand-written `installation.yaml`, and the namespace
 * is prepared for precisely the configuration the release will run with.
 *
 * Values are coalesced as helm does: the chart's `values.yaml` first, the file over it — maps
 * merge key by key, anything else (lists included) replaces, and `null` removes a default. The
 * template's conditions use Go template truth: false, 0, "" and empty maps or lists are false.
 * A test renders the chart with the real helm and compares this document with its ConfigMap.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ConfigurationError,
  readYamlFile,
  validateInstallationConfig,
  type InstallationConfig,
} from "./installation-config.js";

/** The chart shipped with this release (the source tree's, or the image's copy). */
export const BUNDLED_CHART_DIR = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../deploy/helm/openclaw-enterprise",
);

type Values = Record<string, unknown>;

function isMap(v: unknown): v is Values {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** helm's coalescing of `over` onto `base` (see the module comment). */
export function coalesceValues(base: Values, over: Values): Values {
  const removed = new Set(
    Object.entries(over)
      .filter(([, value]) => value === null)
      .map(([key]) => key),
  );
  const out: Values = Object.fromEntries(Object.entries(base).filter(([key]) => !removed.has(key)));
  for (const [key, value] of Object.entries(over)) {
    if (value === null) continue;
    const current = out[key];
    out[key] = isMap(current) && isMap(value) ? coalesceValues(current, value) : value;
  }
  return out;
}

/** Go template truth. */
function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

/** `$v.a.b.c`: a missing step is nil, as in a template. */
function at(values: Values, path: string): unknown {
  let cur: unknown = values;
  for (const key of path.split(".")) {
    if (!isMap(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/** The document `occ.installationConfig` renders for `values` in `releaseNamespace`. */
export function installationDocumentOf(values: Values, releaseNamespace: string): Values {
  const v = (path: string) => at(values, path);
  const network: Values = {
    dns: v("network.dns"),
    gatewayPort: v("network.gatewayPort"),
    gatewayClients: v("network.gatewayClients"),
  };
  if (truthy(v("gatewayRouting.enabled"))) {
    network.gatewayRouting = {
      gatewayNamespace: releaseNamespace,
      gatewayName: v("gatewayRouting.gatewayName"),
      envoyNamespace: v("gatewayRouting.envoyNamespace"),
    };
  }
  if (truthy(v("egressAuthority.enabled"))) {
    network.egressAuthority = {
      namespace: v("egressAuthority.namespace"),
      podLabels: v("egressAuthority.podLabels"),
      port: v("egressAuthority.port"),
      service: v("egressAuthority.service"),
    };
  }
  const openshellEnabled = truthy(v("openshell.enabled"));
  const kubernetes: Values = {
    controllerNamespace: releaseNamespace,
    requestTimeoutMs: v("kubernetesApi.requestTimeoutMs"),
    rateLimit: v("kubernetesApi.rateLimit"),
  };
  const doc: Values = {
    drivers: {
      compute: "kubernetes",
      configuration: "kubernetes",
      secret: "kubernetes",
      sandbox: openshellEnabled ? "openshell" : "none",
    },
    kubernetes,
    resources: {
      namespace: {
        quota: v("tenantResources.quota"),
        limits: v("tenantResources.limits"),
        requests: v("tenantResources.requests"),
      },
    },
    network,
    executionCluster: { enabled: v("executionCluster.enabled") },
    worker: v("worker.queue"),
  };
  // `occ.preprovisioned`: the key is set (kindIs "invalid" is false for anything but nil).
  const preprovisioned =
    v("preprovisionedNamespace") !== undefined && v("preprovisionedNamespace") !== null;
  if (truthy(v("admissionPolicies.enabled")) && !preprovisioned) {
    const sa = (component: "worker" | "api") => ({
      kind: "ServiceAccount",
      name: v(`${component}.serviceAccountName`),
      namespace: releaseNamespace,
    });
    kubernetes.tenantRoleBindings = { worker: sa("worker"), api: sa("api") };
  }
  if (truthy(v("workloads"))) doc.workloads = v("workloads");
  if (openshellEnabled) {
    const os: Values = {
      endpoint: v("openshell.endpoint"),
      requestTimeoutMs: v("openshell.requestTimeoutMs"),
    };
    if (truthy(v("openshell.tls.secretName"))) {
      os.tlsRootFile = `/etc/occ/openshell/tls/${String(v("openshell.tls.key"))}`;
    }
    if (truthy(v("openshell.token.secretName"))) {
      os.tokenFile = `/etc/occ/openshell/token/${String(v("openshell.token.key"))}`;
    }
    os.gateway = {
      workspaceMode: "operator",
      operatorNamespaceLabels: v("openshell.gateway.operatorNamespaceLabels"),
      operatorWorkspaceResources: v("openshell.gateway.operatorWorkspaceResources"),
      networkPolicyResources: v("openshell.gateway.networkPolicyResources"),
    };
    doc.openshell = os;
  }
  const auth = authSectionOf(values);
  if (auth !== undefined) doc.auth = auth;
  // A nil (a key the values lack) renders as `null`, as toYaml writes it.
  return JSON.parse(JSON.stringify(doc, (_key, value: unknown) => value ?? null)) as Values;
}

/** The external sign-in providers, as `occ.signInProviders` lists them. */
const SIGN_IN_PROVIDERS = ["google", "oidc"] as const;

/**
 * `occ.setAuthConfig`: the `auth` section, or undefined when nothing is set beyond the defaults
 * (no base URL, key Secret, recovery principal or provider).
 */
function authSectionOf(values: Values): Values | undefined {
  const v = (path: string) => at(values, path);
  const auth: Values = {};
  if (truthy(v("auth.baseUrl"))) auth.baseUrl = v("auth.baseUrl");
  if (truthy(v("auth.secretName"))) {
    auth.sessionKeyFile = `/etc/occ/auth/session/${String(v("auth.secretKey"))}`;
  }
  if (truthy(v("auth.recoveryUserId"))) auth.recoveryUserId = v("auth.recoveryUserId");
  for (const name of SIGN_IN_PROVIDERS) {
    const p = (key: string) => v(`auth.${name}.${key}`);
    if (!truthy(p("enabled"))) continue;
    const dir = `/etc/occ/auth/${name}`;
    const provider: Values = {
      clientIdFile: `${dir}/${String(p("clientIdKey"))}`,
      clientSecretFile: `${dir}/${String(p("clientSecretKey"))}`,
      allowedEmails: p("allowedEmails"),
      allowedDomains: p("allowedDomains"),
    };
    if (name === "oidc") {
      provider.issuer = p("issuer");
      if (truthy(p("displayName"))) provider.displayName = p("displayName");
      provider.allowedGroups = p("allowedGroups");
      provider.groupRoles = p("groupRoles");
    }
    auth[name] = provider;
  }
  if (Object.keys(auth).length === 0) return undefined;
  auth.passwordSignIn = v("auth.passwordSignIn");
  return auth;
}

async function readValuesFile(path: string): Promise<Values> {
  const doc = await readYamlFile(path);
  if (doc === null || doc === undefined) return {};
  if (!isMap(doc)) {
    throw new ConfigurationError(path, [
      { key: "(top level)", message: `${path} must be a map of Helm values` },
    ]);
  }
  return doc;
}

/** Where the values come from: the file `helm install -f` takes, its namespace, the chart. */
export interface ChartValuesSource {
  readonly valuesFile: string;
  /** `helm install -n`: the chart renders it as the controller and gateway namespace. */
  readonly releaseNamespace: string;
  /** The chart directory (default {@link BUNDLED_CHART_DIR}). */
  readonly chartDir?: string;
}

/** The chart's defaults coalesced with the file, before rendering. */
export async function loadChartValues(source: ChartValuesSource): Promise<Values> {
  const chart = source.chartDir ?? BUNDLED_CHART_DIR;
  const defaults = await readValuesFile(join(chart, "values.yaml")).catch((err: unknown) => {
    if (source.chartDir !== undefined || !(err instanceof ConfigurationError)) throw err;
    throw new ConfigurationError(chart, [
      {
        key: "--chart",
        message: `${err.problems.map((p) => p.message).join("; ")}: pass --chart <the openclaw-enterprise chart directory helm installs>`,
      },
    ]);
  });
  return coalesceValues(defaults, await readValuesFile(source.valuesFile));
}

/**
 * The chart's refusal of `openshellGit.enabled: true` (`templates/_validate.tpl`), word for word:
 * seed 001 accepts the OpenShell Git transport instead of the Credential Proxy, and the chart
 * keeps the key so such values install, but this release has no such transport.
 */
export const OPENSHELL_GIT_UNSUPPORTED =
  "openshellGit.enabled: true is not supported by this release: OCC has no OpenShell Git transport; set openshellGit.enabled: false (with preprovisionedNamespace, egressAuthority.enabled: true: the Credential Proxy)";

/**
 * The validated Installation configuration the chart would run the release with.
 *
 * @throws ConfigurationError as the chart refuses `openshellGit.enabled: true` (the
 *   Installation configuration has no such key to carry it to the processes).
 */
export async function installationConfigFromValues(
  source: ChartValuesSource,
): Promise<InstallationConfig> {
  const values = await loadChartValues(source);
  if (truthy(at(values, "openshellGit.enabled"))) {
    throw new ConfigurationError(source.valuesFile, [
      { key: "openshellGit.enabled", message: OPENSHELL_GIT_UNSUPPORTED },
    ]);
  }
  return validateInstallationConfig(
    installationDocumentOf(values, source.releaseNamespace),
    `${source.valuesFile} as the chart renders it`,
  );
}
