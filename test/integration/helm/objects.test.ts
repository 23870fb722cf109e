import { beforeAll, describe, expect, it } from "vitest";
import { gatewayMembership } from "../../../src/domain/placement/naming.js";
import { CI_VALUES, findObject, renderChart, type RenderedObject } from "../../harness/helm.js";
import { kubeAs, uniqueName } from "../../harness/kube.js";
import { collectionPath, rawRequest } from "./api-server.js";

/**
 * What the rendered objects say, beyond being accepted: the pods pass Pod Security "restricted"
 * on the real API server, the Gateway admits routes only from the member namespaces (label
 * value computed as the product computes it), and the control plane's NetworkPolicies deny by
 * default and never open a rule to everything.
 */
type Spec<T> = RenderedObject & { spec: T };
interface PodTemplate {
  template: { spec: { containers: { securityContext?: unknown }[] } & Record<string, unknown> };
}

describe("Pod Security: every pod the chart renders is admitted under `restricted`", () => {
  let restricted: string;
  beforeAll(async () => {
    restricted = uniqueName("helm-restricted");
    await kubeAs("admin").core.createNamespace({
      body: {
        metadata: {
          name: restricted,
          labels: {
            "pod-security.kubernetes.io/enforce": "restricted",
            "pod-security.kubernetes.io/enforce-version": "latest",
          },
        },
      },
    });
  });

  /** The pods' ServiceAccounts must exist for the Pod to be admitted at all. */
  async function createServiceAccounts(objects: readonly RenderedObject[]): Promise<void> {
    const { path } = await collectionPath("v1", "ServiceAccount", restricted);
    for (const sa of objects.filter((o) => o.kind === "ServiceAccount")) {
      const res = await rawRequest("POST", path, { ...sa, metadata: { name: sa.metadata.name } });
      expect([201, 409]).toContain(res.status);
    }
  }

  async function dryRunPod(name: string, spec: Record<string, unknown>) {
    const { path } = await collectionPath("v1", "Pod", restricted);
    return rawRequest("POST", `${path}?dryRun=All`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: restricted },
      spec,
    });
  }

  for (const [profile, file] of Object.entries(CI_VALUES)) {
    it(`${profile} profile: the API, worker${profile === "default" ? " and Job" : ""} pods`, async () => {
      const objects = await renderChart({ valuesFiles: [file], namespace: restricted });
      await createServiceAccounts(objects);
      const workloads = objects.filter((o) => o.kind === "Deployment" || o.kind === "Job");
      expect(workloads).toHaveLength(profile === "default" ? 3 : 2);
      for (const w of workloads as Spec<PodTemplate>[]) {
        const res = await dryRunPod(w.metadata.name, w.spec.template.spec);
        expect(`${w.kind} ${w.metadata.name}: ${res.status} ${JSON.stringify(res.body)}`).toBe(
          `${w.kind} ${w.metadata.name}: 201 ${JSON.stringify(res.body)}`,
        );
      }
    });
  }

  it("(the namespace really enforces: the same pod without its security context is refused)", async () => {
    const objects = await renderChart({ valuesFiles: [CI_VALUES.default], namespace: restricted });
    await createServiceAccounts(objects);
    const api = objects.find((o) => o.kind === "Deployment") as Spec<PodTemplate>;
    const spec = api.spec.template.spec;
    const res = await dryRunPod("insecure", {
      ...spec,
      securityContext: {},
      containers: spec.containers.map((c) => ({ ...c, securityContext: undefined })),
    });
    expect(res.status).toBe(403);
    expect(JSON.stringify(res.body)).toContain('violates PodSecurity \\"restricted:latest\\"');
  });
});

interface GatewaySpec {
  gatewayClassName: string;
  infrastructure: { parametersRef: { group: string; kind: string; name: string } };
  listeners: {
    name: string;
    protocol: string;
    allowedRoutes: {
      kinds: { kind: string }[];
      namespaces: { from: string; selector: { matchLabels: Record<string, string> } };
    };
  }[];
}

describe("gateway routing", () => {
  for (const namespace of ["openclaw-system", "occ-prod", "a"]) {
    it(`the https listener admits routes only from member namespaces (release ${namespace})`, async () => {
      const objects = await renderChart({ valuesFiles: [CI_VALUES.default], namespace });
      const gateway = findObject(objects, "Gateway", "oce-agent-gateways") as Spec<GatewaySpec>;
      expect(gateway.metadata.namespace).toBe(namespace);
      expect(gateway.spec.listeners.map((l) => l.name)).toEqual(["https"]);
      const [https] = gateway.spec.listeners;
      expect(https?.protocol).toBe("HTTPS");
      expect(https?.allowedRoutes).toEqual({
        kinds: [{ kind: "HTTPRoute" }],
        namespaces: {
          from: "Selector",
          selector: {
            matchLabels: {
              "openclaw-enterprise.io/gateway": gatewayMembership(namespace, "oce-agent-gateways"),
            },
          },
        },
      });
    });
  }

  it("matches the placement.md vector: openclaw-system/oce-agent-gateways → 20ec97c41b82", async () => {
    const objects = await renderChart({ valuesFiles: [CI_VALUES.default] });
    const gateway = findObject(objects, "Gateway", "oce-agent-gateways") as Spec<GatewaySpec>;
    expect(
      gateway.spec.listeners[0]?.allowedRoutes.namespaces.selector.matchLabels[
        "openclaw-enterprise.io/gateway"
      ],
    ).toBe("20ec97c41b82");
  });

  it("the Gateway uses the EnvoyProxy that carries the configured proxy Service type", async () => {
    for (const serviceType of ["ClusterIP", "LoadBalancer"]) {
      const objects = await renderChart({
        valuesFiles: [CI_VALUES.default],
        values: { gatewayRouting: { serviceType } },
      });
      const gateway = findObject(objects, "Gateway", "oce-agent-gateways") as Spec<GatewaySpec>;
      expect(gateway.spec.infrastructure.parametersRef).toEqual({
        group: "gateway.envoyproxy.io",
        kind: "EnvoyProxy",
        name: "oce-agent-gateways",
      });
      const proxy = findObject(objects, "EnvoyProxy", "oce-agent-gateways") as Spec<{
        provider: { type: string; kubernetes: { envoyService: { type: string } } };
      }>;
      expect(proxy.spec.provider.type).toBe("Kubernetes");
      expect(proxy.spec.provider.kubernetes.envoyService.type).toBe(serviceType);
    }
  });

  it("renders neither the Gateway nor the EnvoyProxy when disabled", async () => {
    const objects = await renderChart();
    expect(objects.filter((o) => o.kind === "Gateway" || o.kind === "EnvoyProxy")).toEqual([]);
  });
});

interface Rule {
  from?: unknown[];
  to?: unknown[];
  ports?: { protocol: string; port: number }[];
}
interface PolicySpec {
  podSelector: { matchLabels: Record<string, string> };
  policyTypes: string[];
  ingress?: Rule[];
  egress?: Rule[];
}

describe("the control plane's own NetworkPolicies", () => {
  it("deny by default, and no rule opens to every peer or every port", async () => {
    const objects = await renderChart({ valuesFiles: [CI_VALUES.default] });
    const policies = objects.filter((o) => o.kind === "NetworkPolicy") as Spec<PolicySpec>[];
    expect(policies.map((p) => p.metadata.name).sort()).toEqual([
      "occ-openclaw-enterprise-api",
      "occ-openclaw-enterprise-default-deny",
      "occ-openclaw-enterprise-init",
      "occ-openclaw-enterprise-worker",
    ]);
    const deny = findObject(objects, "NetworkPolicy", "occ-openclaw-enterprise-default-deny");
    expect((deny as Spec<PolicySpec>).spec).toEqual({
      podSelector: {
        matchLabels: {
          "app.kubernetes.io/name": "openclaw-enterprise",
          "app.kubernetes.io/instance": "occ",
        },
      },
      policyTypes: ["Ingress", "Egress"],
    });
    for (const p of policies) {
      expect(p.spec.policyTypes).toEqual(["Ingress", "Egress"]);
      for (const rule of [...(p.spec.ingress ?? []), ...(p.spec.egress ?? [])]) {
        const peers = rule.from ?? rule.to ?? [];
        expect(
          peers.length,
          `${p.metadata.name}: a rule without peers allows everyone`,
        ).toBeGreaterThan(0);
        expect(rule.ports?.length ?? 0, `${p.metadata.name}: a rule without ports`).toBeGreaterThan(
          0,
        );
      }
    }
  });

  it("the Job reaches only DNS and the database; the worker also the API server and OpenShell", async () => {
    const objects = await renderChart({ valuesFiles: [CI_VALUES.default] });
    const ports = (name: string) =>
      ((findObject(objects, "NetworkPolicy", name) as Spec<PolicySpec>).spec.egress ?? []).map(
        (r) => (r.ports ?? []).map((p) => `${p.protocol}/${p.port}`).join(","),
      );
    expect(ports("occ-openclaw-enterprise-init")).toEqual([
      "UDP/53,TCP/53,UDP/5353,TCP/5353",
      "TCP/5432",
    ]);
    expect(ports("occ-openclaw-enterprise-api")).toEqual([
      "UDP/53,TCP/53,UDP/5353,TCP/5353",
      "TCP/5432",
      "TCP/443,TCP/6443",
    ]);
    expect(ports("occ-openclaw-enterprise-worker")).toEqual([
      "UDP/53,TCP/53,UDP/5353,TCP/5353",
      "TCP/5432",
      "TCP/443,TCP/6443",
      "TCP/8443",
    ]);
    const api = findObject(objects, "NetworkPolicy", "occ-openclaw-enterprise-api");
    expect((api as Spec<PolicySpec>).spec.ingress).toEqual([
      {
        from: [
          {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } },
            podSelector: { matchLabels: { "app.kubernetes.io/name": "ingress-nginx" } },
          },
        ],
        ports: [{ protocol: "TCP", port: 8080 }],
      },
    ]);
  });

  it("with no API clients configured, the API admits no ingress at all", async () => {
    const objects = await renderChart();
    const api = findObject(objects, "NetworkPolicy", "occ-openclaw-enterprise-api");
    expect((api as Spec<PolicySpec>).spec.ingress).toBe(undefined);
  });
});
