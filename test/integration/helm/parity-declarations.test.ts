/**
 * deploy.md parity, continued from parity.test.ts: the OpenShell declaration, tenant
 * quantities and network peers' pod labels, each refused or accepted by the chart and the
 * controller alike.
 */
import { describe, expect, it } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { CI_VALUES, helmTemplate } from "../../harness/helm.js";
import { rendered, type Doc } from "./rendered.js";

/**
 * The OpenShell operator-mode declaration: each chart refusal (schema or template) and the
 * same declaration written into the accepted configuration document, refused by the
 * controller's configuration validation with the same key. In both profiles.
 */
describe("OpenShell declaration: each chart refusal has a matching controller refusal", () => {
  const sa = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name, ...extra },
  });
  const policy = (name: string) => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name },
    spec: { podSelector: {}, policyTypes: ["Ingress"] },
  });
  const cases: [string, Record<string, unknown>, string, string][] = [
    [
      "no operator namespace label",
      { operatorNamespaceLabels: null },
      "openshell.gateway.operatorNamespaceLabels",
      "openshell.gateway.operatorNamespaceLabels",
    ],
    [
      "an invalid label key",
      { operatorNamespaceLabels: { "bad key!": "x" } },
      "openshell.gateway.operatorNamespaceLabels.bad key!",
      "openshell.gateway.operatorNamespaceLabels.bad key!",
    ],
    [
      "a Secret among the workspace resources",
      {
        operatorWorkspaceResources: [
          { apiVersion: "v1", kind: "Secret", metadata: { name: "token" } },
        ],
      },
      "/openshell/gateway/operatorWorkspaceResources/0/kind",
      "openshell.gateway.operatorWorkspaceResources[0].kind",
    ],
    [
      "a manifest with its own namespace",
      { operatorWorkspaceResources: [sa("sandbox", { namespace: "elsewhere" })] },
      "/openshell/gateway/operatorWorkspaceResources/0/metadata",
      "openshell.gateway.operatorWorkspaceResources[0].metadata.namespace",
    ],
    [
      "a policy named like a Compute policy",
      { networkPolicyResources: [policy("default-deny")] },
      "/openshell/gateway/networkPolicyResources/0/metadata/name",
      "openshell.gateway.networkPolicyResources[0].metadata.name",
    ],
    [
      "a NetworkPolicy without a spec",
      {
        networkPolicyResources: [
          { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: "p" } },
        ],
      },
      "/openshell/gateway/networkPolicyResources/0",
      "openshell.gateway.networkPolicyResources[0].spec",
    ],
    [
      "an empty egress list its policyTypes does not list",
      {
        networkPolicyResources: [
          { ...policy("allow-sandbox"), spec: { podSelector: {}, egress: [] } },
        ],
      },
      "openshell.gateway.networkPolicyResources[0].spec.egress is an empty list",
      "openshell.gateway.networkPolicyResources[0].spec.egress",
    ],
    [
      "an empty ingress list beside policyTypes [Egress], among the workspace resources",
      {
        operatorWorkspaceResources: [
          {
            ...policy("sandbox-ingress"),
            spec: { podSelector: {}, policyTypes: ["Egress"], ingress: [] },
          },
        ],
      },
      "openshell.gateway.operatorWorkspaceResources[0].spec.ingress is an empty list",
      "openshell.gateway.operatorWorkspaceResources[0].spec.ingress",
    ],
    [
      "the same kind and name declared twice",
      {
        operatorWorkspaceResources: [policy("allow-openshell-gateway")],
        networkPolicyResources: [policy("allow-openshell-gateway")],
      },
      "openshell.gateway.networkPolicyResources[0] declares NetworkPolicy/allow-openshell-gateway",
      "openshell.gateway.networkPolicyResources[0]",
    ],
  ];
  for (const [profile, file] of Object.entries(CI_VALUES)) {
    for (const [name, gateway, chartKey, controllerKey] of cases) {
      it(`${profile} profile: ${name}`, async () => {
        const run = await helmTemplate({
          valuesFiles: [file],
          values: { openshell: { gateway } },
        });
        expect(run.code).not.toBe(0);
        expect(run.stderr).toContain(chartKey);
        const { doc } = await rendered({ valuesFiles: [file] });
        const openshell = doc.openshell as { gateway: Record<string, unknown> };
        const declared = Object.fromEntries(Object.entries(gateway).map(([k, v]) => [k, v ?? {}]));
        const changed = {
          ...doc,
          openshell: { ...openshell, gateway: { ...openshell.gateway, ...declared } },
        };
        expect(() => validateInstallationConfig(changed, "changed")).toThrow(controllerKey);
      });
    }
  }
});

describe("tenant quantities: the chart and the controller agree", () => {
  const cases: [string, Record<string, unknown>, string | null, string | null][] = [
    [
      "not a quantity",
      { limits: { cpu: "1 core" } },
      "/tenantResources/limits/cpu",
      "resources.namespace.limits.cpu",
    ],
    [
      "request above limit (cpu)",
      { requests: { cpu: "1500m" }, limits: { cpu: "1" } },
      "tenantResources.requests.cpu",
      "resources.namespace.requests.cpu",
    ],
    [
      "request above limit (memory, mixed units)",
      { requests: { memory: "2Gi" }, limits: { memory: "2000Mi" } },
      "tenantResources.requests.memory",
      "resources.namespace.requests.memory",
    ],
    [
      "request above limit (exponent form)",
      { requests: { memory: "2e9" }, limits: { memory: "1Gi" } },
      "tenantResources.requests.memory",
      "resources.namespace.requests.memory",
    ],
    [
      "request equal to limit in another notation",
      { requests: { cpu: "100m", memory: "1Gi" }, limits: { cpu: "0.1", memory: "1073741824" } },
      null,
      null,
    ],
    ["request just below limit", { requests: { cpu: "999m" }, limits: { cpu: "1" } }, null, null],
  ];
  for (const [name, tenantResources, chartKey, controllerKey] of cases) {
    it(name, async () => {
      const run = await helmTemplate({ values: { tenantResources } });
      if (chartKey === null) expect(run.stderr).toBe("");
      else expect(run.stderr).toContain(chartKey);
      expect(run.code === 0).toBe(chartKey === null);
      // The same values written into the default rendering's document, for the controller.
      const { doc } = await rendered({});
      const resources = doc.resources as { namespace: Record<string, Record<string, unknown>> };
      const ns = { ...resources.namespace };
      for (const [k, v] of Object.entries(tenantResources)) {
        ns[k] = { ...ns[k], ...(v as Record<string, unknown>) };
      }
      const changed = { ...doc, resources: { namespace: ns } };
      if (controllerKey === null)
        expect(() => validateInstallationConfig(changed, "t")).not.toThrow();
      else expect(() => validateInstallationConfig(changed, "t")).toThrow(controllerKey);
    });
  }
});

describe("network peers' pod labels: the chart and the controller agree", () => {
  const cases: [string, Record<string, unknown>, (doc: Doc) => Doc, string, string][] = [
    [
      "an invalid DNS pod label key",
      { network: { dns: { namespace: "kube-system", podLabels: { "k8s app": "kube-dns" } } } },
      (doc) => ({
        ...doc,
        network: {
          ...doc.network,
          dns: { namespace: "kube-system", podLabels: { "k8s app": "kube-dns" } },
        },
      }),
      "network.dns.podLabels.k8s app",
      "network.dns.podLabels",
    ],
    [
      "an invalid gateway client pod label value",
      { network: { gatewayClients: [{ namespace: "a", podLabels: { x: "bad value" } }] } },
      (doc) => ({
        ...doc,
        network: {
          ...doc.network,
          gatewayClients: [{ namespace: "a", podLabels: { x: "bad value" } }],
        },
      }),
      "network.gatewayClients[0].podLabels.x",
      "network.gatewayClients[0].podLabels",
    ],
  ];
  for (const [name, values, change, chartKey, controllerKey] of cases) {
    it(name, async () => {
      const run = await helmTemplate({ valuesFiles: [CI_VALUES.default], values });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(chartKey);
      const { doc } = await rendered({ valuesFiles: [CI_VALUES.default] });
      expect(() => validateInstallationConfig(doc, "accepted")).not.toThrow();
      expect(() => validateInstallationConfig(change(doc), "changed")).toThrow(controllerKey);
    });
  }
});
