import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import type { NamespaceId } from "../../../src/domain/index.js";
import { renderPreprovisionedYaml } from "../../../src/drivers/preprovisioned-render.js";

const config = validateInstallationConfig(
  {
    drivers: { sandbox: "openshell" },
    network: {
      gatewayRouting: {
        gatewayNamespace: "openclaw-system",
        gatewayName: "oce-agent-gateways",
        envoyNamespace: "envoy",
      },
      egressAuthority: { namespace: "proxy", port: 3128 },
    },
    openshell: {
      endpoint: "openshell:8080",
      gateway: {
        operatorNamespaceLabels: { "openshell.nvidia.com/mode": "operator" },
        operatorWorkspaceResources: [
          {
            apiVersion: "v1",
            kind: "ServiceAccount",
            metadata: { name: "sandbox", labels: { own: "x" } },
          },
        ],
        networkPolicyResources: [
          {
            apiVersion: "networking.k8s.io/v1",
            kind: "NetworkPolicy",
            metadata: { name: "sandbox-egress" },
            spec: { podSelector: {}, policyTypes: ["Egress"] },
          },
        ],
      },
    },
  },
  "t",
);

describe("occ preprovisioned render", () => {
  const docs = parseAllDocuments(
    renderPreprovisionedYaml({
      namespaceId: "ns_example" as NamespaceId,
      config,
      worker: { kind: "ServiceAccount", name: "occ-worker", namespace: "openclaw-system" },
      api: { kind: "ServiceAccount", name: "occ-api", namespace: "openclaw-system" },
    }),
  ).map((d) => d.toJS() as { kind: string; metadata: Record<string, unknown> & { name: string } });

  it("renders the Namespace with every label and annotation of the seed's table", () => {
    expect(docs[0]).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: "oce-52be956b5de4b1b",
        annotations: {
          "openclaw.dev/namespace-lifecycle": "preprovisioned",
          "openclaw.dev/namespace-id": "ns_example",
        },
        labels: {
          "openshell.nvidia.com/mode": "operator",
          "app.kubernetes.io/managed-by": "openclaw-enterprise",
          "openclaw.dev/namespace": "ns_example",
          "openclaw.dev/gateway-namespace": "ns_example",
          "openclaw-enterprise.io/gateway": "20ec97c41b82",
          "pod-security.kubernetes.io/enforce": "restricted",
          "pod-security.kubernetes.io/audit": "restricted",
          "pod-security.kubernetes.io/warn": "restricted",
        },
      },
    });
  });

  it("then the RoleBindings of the worker and the API, then the declared resources with markers", () => {
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      "Namespace/oce-52be956b5de4b1b",
      "RoleBinding/openclaw-enterprise-tenant-worker",
      "RoleBinding/openclaw-enterprise-tenant-api",
      "RoleBinding/openclaw-enterprise-tenant-openshell",
      "ServiceAccount/sandbox",
      "NetworkPolicy/sandbox-egress",
    ]);
    for (const d of docs.slice(1)) expect(d.metadata.namespace).toBe("oce-52be956b5de4b1b");
    expect(docs[4]?.metadata).toMatchObject({
      labels: {
        own: "x",
        "app.kubernetes.io/managed-by": "openclaw-enterprise",
        "openclaw.dev/namespace": "ns_example",
      },
      annotations: { "openclaw.dev/namespace-id": "ns_example" },
    });
  });
});
