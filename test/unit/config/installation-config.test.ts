import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { egressProxyUrl } from "../../../src/domain/workloads/pods.js";
import { describe, expect, it } from "vitest";
import {
  loadInstallationConfig,
  validateInstallationConfig,
} from "../../../src/config/installation-config.js";
import { problemsOf } from "./problems.js";

describe("Installation configuration", () => {
  it("fills every default from an empty document", () => {
    const c = validateInstallationConfig({}, "test.yaml");
    expect(c.drivers).toEqual({
      compute: "kubernetes",
      configuration: "kubernetes",
      secret: "kubernetes",
      sandbox: "none",
    });
    expect(c.worker).toEqual({
      concurrency: 4,
      maxAttempts: 5,
      leaseSeconds: 15,
      convergenceDeadlineSeconds: 900,
      pollSeconds: 60,
      resyncSeconds: 600,
    });
    expect(c.compute.gatewayRouting).toBeNull();
    expect(c.compute.containerRequests).toEqual({ cpu: "250m", memory: "256Mi" });
    expect(c.kubernetes.controllerNamespace).toBe("openclaw-system");
  });

  it("addresses the Credential Proxy by its Service, `egress-authority` unless named", () => {
    const doc = (service?: string) => ({
      network: {
        egressAuthority: { namespace: "proxy", port: 3128, ...(service ? { service } : {}) },
      },
    });
    const urlOf = (service?: string) => {
      const authority = validateInstallationConfig(doc(service), "test").egressAuthority;
      if (authority === null) throw new Error("no egress authority");
      return egressProxyUrl(authority);
    };
    expect(urlOf()).toBe("http://egress-authority.proxy.svc:3128");
    expect(urlOf("credential-proxy")).toBe("http://credential-proxy.proxy.svc:3128");
    expect(() => validateInstallationConfig(doc("Bad_Name"), "test")).toThrow(
      /network\.egressAuthority\.service/,
    );
  });

  it("accepts an installed Compute Driver module and gateway routing", () => {
    const c = validateInstallationConfig(
      {
        drivers: { compute: { module: "./drivers/docker.js" } },
        network: {
          gatewayRouting: {
            gatewayNamespace: "openclaw-system",
            gatewayName: "oce-agent-gateways",
            envoyNamespace: "envoy-gateway-system",
          },
        },
      },
      "test.yaml",
    );
    expect(c.drivers.compute).toEqual({ module: "./drivers/docker.js" });
    expect(c.compute.gatewayRouting?.gatewayName).toBe("oce-agent-gateways");
  });

  it.each([
    [{ workers: {} }, /\(top level\)|workers/],
    [{ worker: { concurrency: 0 } }, /worker\.concurrency/],
    [{ worker: { concurency: 2 } }, /worker/],
    [{ drivers: { compute: "docker" } }, /drivers\.compute/],
    [{ resources: { namespace: { quota: { pods: 50 } } } }, /resources\.namespace\.quota.*"50"/],
    [
      {
        resources: {
          namespace: { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "2", memory: "1Gi" } },
        },
      },
      /resources\.namespace\.requests\.cpu.*must not exceed.*resources\.namespace\.limits\.cpu/,
    ],
    [{ network: { gatewayPort: "http" } }, /network\.gatewayPort/],
  ])("refuses %j naming the key", (doc, pattern) => {
    const problems = problemsOf(doc);
    expect(problems.join("\n")).toMatch(pattern);
  });

  describe("a declared NetworkPolicy with an empty list for an unlisted direction", () => {
    const withPolicy = (spec: Record<string, unknown>, list = "networkPolicyResources") => ({
      openshell: {
        endpoint: "openshell.openshell-system:8080",
        gateway: {
          operatorNamespaceLabels: { "openshell.io/workspace": "true" },
          [list]: [
            {
              apiVersion: "networking.k8s.io/v1",
              kind: "NetworkPolicy",
              metadata: { name: "op-egress" },
              spec,
            },
          ],
        },
      },
    });

    it.each([
      [
        { podSelector: {}, policyTypes: ["Ingress"], ingress: [{}], egress: [] },
        "networkPolicyResources",
        "openshell.gateway.networkPolicyResources[0].spec.egress",
      ],
      [
        { podSelector: {}, policyTypes: ["Egress"], egress: [{}], ingress: [] },
        "networkPolicyResources",
        "openshell.gateway.networkPolicyResources[0].spec.ingress",
      ],
      [
        { podSelector: {}, egress: [] },
        "operatorWorkspaceResources",
        "openshell.gateway.operatorWorkspaceResources[0].spec.egress",
      ],
      [
        { podSelector: {}, ingress: [] },
        "networkPolicyResources",
        "openshell.gateway.networkPolicyResources[0].spec.ingress",
      ],
    ])("refuses %j in %s, naming %s", (spec, list, key) => {
      const problems = problemsOf(withPolicy(spec, list));
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain(`${key} is an empty list`);
      expect(problems[0]).toMatch(
        /remove (ingress|egress), or add (Ingress|Egress) to policyTypes/,
      );
    });

    it("accepts an empty list for a direction policyTypes lists explicitly", () => {
      const config = validateInstallationConfig(
        withPolicy({
          podSelector: {},
          policyTypes: ["Ingress", "Egress"],
          ingress: [],
          egress: [],
        }),
        "test.yaml",
      );
      expect(config.openshell?.networkPolicyResources).toHaveLength(1);
    });
  });

  it("loads YAML from a file and reports an unreadable or malformed one by path", async () => {
    const dir = await mkdtemp(join(tmpdir(), "occ-cfg-"));
    try {
      const good = join(dir, "good.yaml");
      await writeFile(good, "worker:\n  concurrency: 8\n");
      expect((await loadInstallationConfig(good)).worker.concurrency).toBe(8);
      const bad = join(dir, "bad.yaml");
      await writeFile(bad, "worker: [unclosed\n");
      await expect(loadInstallationConfig(bad)).rejects.toThrow(/bad\.yaml.*not valid YAML/s);
      await expect(loadInstallationConfig(join(dir, "none.yaml"))).rejects.toThrow(/cannot read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
