/**
 * The Installation settings the Compute Driver renders tenant objects from (placement.md §5),
 * and their validation.
 *
 * Validation takes `unknown` — the parsed configuration subtree — and returns either typed
 * settings or every problem found, each naming the Installation key and the fix. It runs at
 * startup (so a bad file is refused with a message) and again before rendering, where a
 * failure becomes `CONFIGURATION_INVALID`: the configuration cannot produce a valid object.
 */
import {
  entryMap,
  dnsLabel,
  labels,
  port,
  quantity,
  record,
  rejectUnknown,
  type ParsedQuantity,
} from "../input/config-fields.js";
import type { StringMap } from "../placement/k8s-objects.js";
import { notDone, type NotDone } from "../placement/outcomes.js";
import { compareQuantities } from "../input/quantity.js";
import { err, ok, type Result } from "../input/result.js";

/** Gateway routing: the Gateway that admits tenant routes, and where its Envoy pods run. */
export interface GatewayRouting {
  readonly gatewayNamespace: string;
  readonly gatewayName: string;
  readonly envoyNamespace: string;
}

/** A network peer: pods with `podLabels` (all pods when empty) in one namespace. */
export interface PeerSetting {
  readonly namespace: string;
  readonly podLabels: StringMap;
}

/** Container CPU and memory as Kubernetes quantity strings. */
export interface ContainerResources {
  readonly cpu: string;
  readonly memory: string;
}

/** Validated Compute settings. Build it with {@link validateComputeSettings}. */
export interface ComputeSettings {
  /** `spec.hard` of `openclaw-quota`: resource name → quantity string. */
  readonly quota: StringMap;
  /** LimitRange `default` (container limits). */
  readonly containerLimits: ContainerResources;
  /** LimitRange `defaultRequest` (container requests); each ≤ its limit. */
  readonly containerRequests: ContainerResources;
  /** The DNS service pods that `allow-dns` opens egress to. */
  readonly dns: PeerSetting;
  /** The TCP port of the Agent gateway pods. */
  readonly gatewayPort: number;
  /** Gateway routing, or `null` when not configured. */
  readonly gatewayRouting: GatewayRouting | null;
  /** Ingress peers of `allow-gateway-ingress` when gateway routing is not configured. */
  readonly gatewayClients: readonly PeerSetting[];
}

/** The Installation configuration key of each setting, used in every message. */
export const COMPUTE_SETTING_KEYS = {
  quota: "resources.namespace.quota",
  containerLimits: "resources.namespace.limits",
  containerRequests: "resources.namespace.requests",
  dns: "network.dns",
  gatewayPort: "network.gatewayPort",
  gatewayRouting: "network.gatewayRouting",
  gatewayClients: "network.gatewayClients",
} as const;

/** Key names to report; the config loader may pass its own if its layout differs. */
export type ComputeSettingKeys = { readonly [K in keyof ComputeSettings]: string };

/** One configuration problem: the offending key and a message that says how to fix it. */
export interface ConfigurationProblem {
  readonly key: string;
  readonly message: string;
}

/** A non-empty list of problems. */
export type ConfigurationProblems = readonly [ConfigurationProblem, ...ConfigurationProblem[]];

/**
 * Validates raw Compute settings. Every problem is reported, not only the first. Quantities
 * must be quoted strings (a YAML number names the key and the quoted form); each container
 * request must not exceed its limit, compared as quantities.
 */
export function validateComputeSettings(
  input: unknown,
  keys: ComputeSettingKeys = COMPUTE_SETTING_KEYS,
): Result<ComputeSettings, ConfigurationProblems> {
  const problems: ConfigurationProblem[] = [];
  const fields = record(input, "Compute settings", problems) ?? {};
  rejectUnknown(fields, Object.keys(keys), "Compute settings", problems, (name) => name);

  const quota = quotaMap(fields["quota"], keys.quota, problems);
  const limits = containerResources(fields["containerLimits"], keys.containerLimits, problems);
  const requests = containerResources(
    fields["containerRequests"],
    keys.containerRequests,
    problems,
  );
  for (const resource of ["cpu", "memory"] as const) {
    const limit = limits[resource];
    const request = requests[resource];
    if (limit && request && compareQuantities(request.value, limit.value) > 0) {
      problems.push({
        key: `${keys.containerRequests}.${resource}`,
        message: `${keys.containerRequests}.${resource} (${JSON.stringify(request.text)}) must not exceed ${keys.containerLimits}.${resource} (${JSON.stringify(limit.text)})`,
      });
    }
  }
  const dns = peer(fields["dns"], keys.dns, problems);
  const gatewayPort = port(fields["gatewayPort"], keys.gatewayPort, problems);
  const gatewayRouting = routing(fields["gatewayRouting"], keys.gatewayRouting, problems);
  const gatewayClients = peers(fields["gatewayClients"], keys.gatewayClients, problems);

  const [first, ...rest] = problems;
  if (first !== undefined) return err([first, ...rest]);
  const { cpu: limitCpu, memory: limitMemory } = limits;
  const { cpu: requestCpu, memory: requestMemory } = requests;
  if (
    !quota ||
    !limitCpu ||
    !limitMemory ||
    !requestCpu ||
    !requestMemory ||
    !dns ||
    gatewayPort === undefined
  ) {
    // Every branch that leaves a value undefined pushed a problem above.
    throw new Error("validateComputeSettings: a missing value was not reported");
  }
  return ok({
    quota,
    containerLimits: { cpu: limitCpu.text, memory: limitMemory.text },
    containerRequests: { cpu: requestCpu.text, memory: requestMemory.text },
    dns,
    gatewayPort,
    gatewayRouting: gatewayRouting ?? null,
    gatewayClients: gatewayClients ?? [],
  });
}

/** The `CONFIGURATION_INVALID` failure for a list of problems (messages joined). */
export function configurationInvalid(problems: ConfigurationProblems): NotDone {
  return notDone("CONFIGURATION_INVALID", problems.map((problem) => problem.message).join("; "));
}

function quotaMap(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
): StringMap | undefined {
  return entryMap(value, key, problems, (name, raw, entryKey) => {
    if (!/^[A-Za-z0-9][A-Za-z0-9./_-]{0,252}$/.test(name)) {
      problems.push({ key: entryKey, message: `${entryKey} is not a Kubernetes resource name` });
      return undefined;
    }
    return quantity(raw, entryKey, problems)?.text;
  });
}

/** Both entries are parsed independently so each missing or invalid one is reported. */
function containerResources(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
): { readonly cpu?: ParsedQuantity | undefined; readonly memory?: ParsedQuantity | undefined } {
  const fields = record(value, key, problems);
  if (fields === undefined) return {};
  rejectUnknown(fields, ["cpu", "memory"], key, problems);
  const entry = (field: "cpu" | "memory"): ParsedQuantity | undefined => {
    if (fields[field] !== undefined) return quantity(fields[field], `${key}.${field}`, problems);
    problems.push({
      key: `${key}.${field}`,
      message: `${key}.${field} is required (a quoted quantity such as "1")`,
    });
    return undefined;
  };
  return { cpu: entry("cpu"), memory: entry("memory") };
}

function peer(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
): PeerSetting | undefined {
  const fields = record(value, key, problems);
  if (fields === undefined) return undefined;
  rejectUnknown(fields, ["namespace", "podLabels"], key, problems);
  const namespace = dnsLabel(fields["namespace"], `${key}.namespace`, problems);
  const podLabels = labels(fields["podLabels"], `${key}.podLabels`, problems);
  return namespace !== undefined && podLabels !== undefined ? { namespace, podLabels } : undefined;
}

function peers(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
): readonly PeerSetting[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push({ key, message: `${key} must be a list of {namespace, podLabels}` });
    return undefined;
  }
  const result: PeerSetting[] = [];
  value.forEach((item: unknown, index) => {
    const parsed = peer(item, `${key}[${index}]`, problems);
    if (parsed !== undefined) result.push(parsed);
  });
  return result.length === value.length ? result : undefined;
}

function routing(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
): GatewayRouting | null | undefined {
  if (value === undefined || value === null) return null;
  const fields = record(value, key, problems);
  if (fields === undefined) return undefined;
  rejectUnknown(fields, ["gatewayNamespace", "gatewayName", "envoyNamespace"], key, problems);
  const gatewayNamespace = dnsLabel(
    fields["gatewayNamespace"],
    `${key}.gatewayNamespace`,
    problems,
  );
  const gatewayName = dnsLabel(fields["gatewayName"], `${key}.gatewayName`, problems);
  const envoyNamespace = dnsLabel(fields["envoyNamespace"], `${key}.envoyNamespace`, problems);
  return gatewayNamespace !== undefined && gatewayName !== undefined && envoyNamespace !== undefined
    ? { gatewayNamespace, gatewayName, envoyNamespace }
    : undefined;
}
