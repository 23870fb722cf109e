import { describe, expect, it } from "vitest";
import {
  COMPUTE_SETTING_KEYS,
  configurationInvalid,
  validateComputeSettings,
  type ComputeSettings,
  type ConfigurationProblem,
} from "../../../src/domain/index.js";
import { VALID_INPUT } from "./fixtures.js";

function problems(input: unknown): readonly ConfigurationProblem[] {
  const result = validateComputeSettings(input);
  if (result.ok) throw new Error("expected problems");
  return result.error;
}

function messages(input: unknown): string[] {
  return problems(input).map((problem) => problem.message);
}

describe("validateComputeSettings: valid input", () => {
  it("returns typed settings", () => {
    const result = validateComputeSettings(VALID_INPUT);
    // Every field of the valid input comes back as it was, now typed.
    const expected: ComputeSettings = VALID_INPUT;
    expect(result).toEqual({ ok: true, value: expected });
  });

  it("routing and clients are optional; pod labels default to {}", () => {
    const result = validateComputeSettings({
      ...VALID_INPUT,
      gatewayRouting: null,
      gatewayClients: undefined,
      dns: { namespace: "kube-system" },
    });
    expect(result.ok && result.value.gatewayRouting).toBeNull();
    expect(result.ok && result.value.gatewayClients).toEqual([]);
    expect(result.ok && result.value.dns).toEqual({ namespace: "kube-system", podLabels: {} });
  });

  it("request equal to its limit, in another notation, is fine", () => {
    const result = validateComputeSettings({
      ...VALID_INPUT,
      containerRequests: { cpu: "1000m", memory: "1073741824" },
    });
    expect(result.ok).toBe(true);
  });
});

describe("validateComputeSettings: problems name the key and the fix", () => {
  it.each([
    [
      "a quota number",
      { ...VALID_INPUT, quota: { pods: 10 } },
      'resources.namespace.quota.pods must be a quoted quantity string: write "10" instead of 10',
    ],
    [
      "a quota number under a dotted name",
      { ...VALID_INPUT, quota: { "requests.cpu": 0.5 } },
      'resources.namespace.quota["requests.cpu"] must be a quoted quantity string: write "0.5" instead of 0.5',
    ],
    [
      "a limit number",
      { ...VALID_INPUT, containerLimits: { cpu: 2, memory: "1Gi" } },
      'resources.namespace.limits.cpu must be a quoted quantity string: write "2" instead of 2',
    ],
    [
      "an invalid quantity",
      { ...VALID_INPUT, containerRequests: { cpu: "half", memory: "1Mi" } },
      'resources.namespace.requests.cpu is not a Kubernetes quantity; use forms such as "500m", "1", "1Gi" or "1e3"',
    ],
    [
      "a negative quantity",
      { ...VALID_INPUT, quota: { pods: "-1" } },
      "resources.namespace.quota.pods must not be negative",
    ],
    [
      "cpu request above the limit",
      { ...VALID_INPUT, containerRequests: { cpu: "1001m", memory: "512Mi" } },
      'resources.namespace.requests.cpu ("1001m") must not exceed resources.namespace.limits.cpu ("1")',
    ],
    [
      "memory request above the limit (binary vs decimal)",
      {
        ...VALID_INPUT,
        containerLimits: { cpu: "1", memory: "1G" },
        containerRequests: { cpu: "1", memory: "1Gi" },
      },
      'resources.namespace.requests.memory ("1Gi") must not exceed resources.namespace.limits.memory ("1G")',
    ],
    [
      "missing memory limit",
      { ...VALID_INPUT, containerLimits: { cpu: "1" } },
      'resources.namespace.limits.memory is required (a quoted quantity such as "1")',
    ],
    [
      "missing quota",
      { ...VALID_INPUT, quota: undefined },
      "resources.namespace.quota must be a map",
    ],
    [
      "bad DNS namespace",
      { ...VALID_INPUT, dns: { namespace: "Kube_System" } },
      "network.dns.namespace must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)",
    ],
    [
      "a numeric pod label value",
      { ...VALID_INPUT, dns: { namespace: "kube-system", podLabels: { tier: 1 } } },
      'network.dns.podLabels.tier must be a quoted string: write "1"',
    ],
    [
      "a bad pod label key",
      { ...VALID_INPUT, dns: { namespace: "kube-system", podLabels: { "a b": "x" } } },
      'network.dns.podLabels["a b"]: the name is not a valid label key',
    ],
    [
      "a port out of range",
      { ...VALID_INPUT, gatewayPort: 70000 },
      "network.gatewayPort must be an integer port between 1 and 65535",
    ],
    [
      "a port as a string",
      { ...VALID_INPUT, gatewayPort: "8080" },
      "network.gatewayPort must be an integer port between 1 and 65535",
    ],
    [
      "incomplete routing",
      {
        ...VALID_INPUT,
        gatewayRouting: { gatewayNamespace: "openclaw-system", gatewayName: "gw" },
      },
      "network.gatewayRouting.envoyNamespace must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)",
    ],
    [
      "clients not a list",
      { ...VALID_INPUT, gatewayClients: { namespace: "a" } },
      "network.gatewayClients must be a list of {namespace, podLabels}",
    ],
    [
      "a bad client",
      { ...VALID_INPUT, gatewayClients: [{ namespace: "ok" }, { namespace: "" }] },
      "network.gatewayClients[1].namespace must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)",
    ],
    [
      "an unknown key",
      { ...VALID_INPUT, containerLimits: { cpu: "1", memory: "1Gi", gpu: "1" } },
      "resources.namespace.limits.gpu is not a known setting",
    ],
    ["an unknown top-level field", { ...VALID_INPUT, extra: true }, "extra is not a known setting"],
  ])("%s", (_case, input, message) => {
    expect(messages(input)).toEqual([message]);
  });

  it("reports every problem, not the first", () => {
    const found = problems({ ...VALID_INPUT, quota: { pods: 10 }, gatewayPort: 0, dns: null });
    expect(found.map((problem) => problem.key)).toEqual([
      "resources.namespace.quota.pods",
      "network.dns",
      "network.gatewayPort",
    ]);
  });

  it("a non-object input is one problem", () => {
    expect(messages("nope")[0]).toBe("Compute settings must be a map");
  });

  it("uses the key names it is given", () => {
    const keys = { ...COMPUTE_SETTING_KEYS, gatewayPort: "compute.gateway.port" };
    const result = validateComputeSettings({ ...VALID_INPUT, gatewayPort: -1 }, keys);
    expect(result.ok ? [] : result.error.map((problem) => problem.key)).toEqual([
      "compute.gateway.port",
    ]);
  });

  it("becomes a permanent CONFIGURATION_INVALID failure", () => {
    const result = validateComputeSettings({ ...VALID_INPUT, quota: { pods: 10 } });
    if (result.ok) throw new Error("expected problems");
    expect(configurationInvalid(result.error)).toEqual({
      outcome: "failed",
      code: "CONFIGURATION_INVALID",
      reason:
        'resources.namespace.quota.pods must be a quoted quantity string: write "10" instead of 10',
      retryable: false,
    });
  });
});
