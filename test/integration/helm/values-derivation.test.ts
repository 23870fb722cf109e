import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  installationConfigFromValues,
  installationDocumentOf,
  loadChartValues,
  OPENSHELL_GIT_UNSUPPORTED,
} from "../../../src/config/chart-values.js";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { CHART_DIR, CI_VALUES, parseManifests, runHelm } from "../../harness/helm.js";
import { installationDocument } from "./rendered.js";

/**
 * `occ preprovisioned … --values` derives the Installation configuration from the values file
 * exactly as the chart renders it: the real helm renders the chart (with its own default
 * Kubernetes version — no --kube-version) and its ConfigMap must equal the derived document.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-values-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function chartDocument(files: readonly string[], namespace: string): Promise<unknown> {
  const args = ["template", "occ", CHART_DIR, "--namespace", namespace];
  for (const f of files) args.push("--values", f);
  const run = await runHelm(args);
  expect(run.code, run.stderr).toBe(0);
  return installationDocument(parseManifests(run.stdout));
}

describe("the helm that tools/build-cluster-tools.sh builds", () => {
  it("defaults to the pinned cluster's Kubernetes version: helm template and lint need no --kube-version", async () => {
    const version = await runHelm([
      "template",
      "v",
      CHART_DIR,
      "--show-only",
      "templates/configmap.yaml",
    ]);
    expect(version.stderr).not.toContain("incompatible with Kubernetes");
    expect(version.code, version.stderr).toBe(0);
    const lint = await runHelm(["lint", CHART_DIR, "--strict", "-f", CI_VALUES.default]);
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
  });
});

describe("the Installation configuration derived from a values file", () => {
  const overrides = {
    // Over the chart's defaults: lists replace, maps merge, null removes a default.
    worker: { queue: { concurrency: 9 } },
    tenantResources: { quota: { pods: "7", "limits.memory": null }, limits: { cpu: "2" } },
    network: { gatewayClients: [{ namespace: "edge", podLabels: { app: "edge" } }] },
    gatewayRouting: { enabled: true, gatewayName: "gw" },
    egressAuthority: { enabled: true, podLabels: { app: "proxy" } },
    openshell: {
      enabled: true,
      endpoint: "os.example:443",
      token: { secretName: "tok", key: "t" },
      egress: { peers: [{ namespace: "openshell" }] },
      gateway: { operatorNamespaceLabels: { "os/ws": "yes" } },
    },
    workloads: { gatewayImage: "registry.example.com/gw:1" },
  };

  it.each([
    ["ci/preprovisioned-values.yaml", CI_VALUES.preprovisioned, "openclaw-system"],
    ["ci/default-values.yaml", CI_VALUES.default, "occ-prod"],
    ["overrides of the chart's defaults", "overrides", "tenant-x"],
  ])(
    "%s: equals the chart's ConfigMap, and validates to the same configuration",
    async (_what, file, namespace) => {
      let path = file;
      if (file === "overrides") {
        path = join(dir, "overrides.yaml");
        await writeFile(path, JSON.stringify(overrides));
      }
      const rendered = await chartDocument([path], namespace);
      const values = await loadChartValues({ valuesFile: path, releaseNamespace: namespace });
      expect(installationDocumentOf(values, namespace)).toEqual(rendered);
      const derived = await installationConfigFromValues({
        valuesFile: path,
        releaseNamespace: namespace,
      });
      expect(derived).toEqual(validateInstallationConfig(rendered, "chart"));
      expect(derived.kubernetes.controllerNamespace).toBe(namespace);
    },
  );
});

describe("openshellGit (seed 001's alternative to the Credential Proxy; no such transport here)", () => {
  it("--values with openshellGit.enabled: true is refused as the chart refuses it; false derives", async () => {
    const on = join(dir, "openshell-git.yaml");
    await writeFile(on, JSON.stringify({ openshellGit: { enabled: true } }));
    const chart = await runHelm(["template", "occ", CHART_DIR, "--values", on]);
    expect(chart.code).not.toBe(0);
    const derived = installationConfigFromValues({ valuesFile: on, releaseNamespace: "x" });
    await expect(derived).rejects.toThrow(OPENSHELL_GIT_UNSUPPORTED);
    expect(chart.stderr).toContain(OPENSHELL_GIT_UNSUPPORTED);

    const off = join(dir, "openshell-git-off.yaml");
    await writeFile(off, JSON.stringify({ openshellGit: { enabled: false } }));
    const config = await installationConfigFromValues({ valuesFile: off, releaseNamespace: "x" });
    expect(config.kubernetes.controllerNamespace).toBe("x");
  });
});
