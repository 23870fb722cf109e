import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  loadInstallationConfig,
  validateInstallationConfig,
} from "../../../src/config/installation-config.js";
import { parsePreprovisionedBinding } from "../../../src/domain/preprovisioned/binding.js";
import {
  STARTUP_MESSAGES,
  checkPreprovisionedPrerequisites,
  checkStartupConfiguration,
  startupProfile,
} from "../../../src/services/preprovisioned/startup.js";
import { CI_VALUES, helmTemplate, renderChart } from "../../harness/helm.js";
import { runOcc } from "../../harness/occ.js";
import { deploymentOf, envOf, installationDocument, rendered, type Doc } from "./rendered.js";

/**
 * deploy.md: "what the chart accepts, the controller accepts, and the reverse". The rendered
 * OCC_PREPROVISIONED_NAMESPACE and Installation configuration go through the controller's own
 * startup validation. For each chart refusal the same input is built directly — the accepted
 * rendering with the one key changed, since the chart cannot render with its check disabled —
 * and the controller refuses it too.
 */
const UID = "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60";
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The controller's startup validation of the configuration document and the binding. */
function controllerAccepts(doc: unknown, raw: string | undefined) {
  const config = validateInstallationConfig(doc, "rendered ConfigMap");
  if (raw === undefined) return checkStartupConfiguration(config, null);
  const binding = parsePreprovisionedBinding(raw);
  if (!binding.ok) return binding;
  return checkPreprovisionedPrerequisites(config);
}

const preprovisioned = (namespaceId: string, uid = UID) => ({
  valuesFiles: [CI_VALUES.preprovisioned],
  values: { preprovisionedNamespace: { namespaceId, uid } },
});

describe("what the chart accepts, the controller accepts", () => {
  for (const [name, opts] of [
    ["normal profile, chart defaults", {}],
    ["normal profile, ci/default-values.yaml", { valuesFiles: [CI_VALUES.default] }],
    ["preprovisioned, ci/preprovisioned-values.yaml", { valuesFiles: [CI_VALUES.preprovisioned] }],
    ["preprovisioned, a 60-character ID", preprovisioned(`ns_${"Z-_9".repeat(15)}`)],
    [
      "preprovisioned, a server-generated ID",
      preprovisioned("ns_00000000-0000-4000-8000-000000000001"),
    ],
  ] as const) {
    it(name, async () => {
      const { raw, doc } = await rendered(opts);
      expect(controllerAccepts(doc, raw)).toEqual({ ok: true, value: undefined });
    });
  }

  it("the binding the controller parses is exactly the chart's input", async () => {
    const { raw } = await rendered(preprovisioned("ns_Tenant_7-b"));
    if (raw === undefined) throw new Error("no binding rendered");
    expect(parsePreprovisionedBinding(raw)).toEqual({
      ok: true,
      value: { namespaceId: "ns_Tenant_7-b", uid: UID },
    });
  });

  it("the rendered configuration carries the profile's prerequisites", async () => {
    const { doc } = await rendered({ valuesFiles: [CI_VALUES.preprovisioned] });
    const config = validateInstallationConfig(doc, "rendered ConfigMap");
    expect(config.drivers).toEqual({
      compute: "kubernetes",
      configuration: "kubernetes",
      secret: "kubernetes",
      sandbox: "openshell",
    });
    expect(config.compute.gatewayRouting).toEqual({
      gatewayNamespace: "openclaw-system",
      gatewayName: "oce-agent-gateways",
      envoyNamespace: "envoy-gateway-system",
    });
    expect(config.egressAuthority).not.toBeNull();
    expect(config.openshell?.endpoint).toBe("openshell-gateway.openshell.svc:8443");
    expect(config.executionCluster.enabled).toBe(false);
    expect(config.kubernetes.controllerNamespace).toBe("openclaw-system");
  });
});

/** Each chart refusal, and the same input built directly, refused by the controller. */
describe("each chart refusal has a matching controller refusal", () => {
  async function chartRefuses(values: Record<string, unknown>, key: string): Promise<void> {
    const run = await helmTemplate({ valuesFiles: [CI_VALUES.preprovisioned], values });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(key);
  }

  async function accepted() {
    const { raw, doc } = await rendered({ valuesFiles: [CI_VALUES.preprovisioned] });
    if (raw === undefined) throw new Error("no binding rendered");
    expect(controllerAccepts(doc, raw)).toEqual({ ok: true, value: undefined });
    return { raw, doc, binding: JSON.parse(raw) as Record<string, unknown> };
  }

  const bindingCases: [string, Record<string, unknown>, string][] = [
    ["an extra key", { owner: "team-a" }, "owner"],
    ["a bad ID", { namespaceId: "example" }, "namespaceId"],
    ["an ID too long", { namespaceId: `ns_${"a".repeat(61)}` }, "namespaceId"],
    ["an uppercase UID", { uid: UID.toUpperCase() }, "uid"],
    ["a malformed UID", { uid: "not-a-uuid" }, "uid"],
  ];
  for (const [name, change, key] of bindingCases) {
    it(`binding: ${name}`, async () => {
      await chartRefuses({ preprovisionedNamespace: change }, `preprovisionedNamespace.${key}`);
      const { raw, doc, binding } = await accepted();
      const changed = JSON.stringify({ ...binding, ...change });
      expect(changed).not.toBe(raw);
      const result = controllerAccepts(doc, changed);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(JSON.stringify(result.error)).toContain(`OCC_PREPROVISIONED_NAMESPACE.${key}`);
    });
  }

  it("binding: a missing uid", async () => {
    await chartRefuses({ preprovisionedNamespace: { uid: null } }, "preprovisionedNamespace.uid");
    const { doc, binding } = await accepted();
    const result = controllerAccepts(doc, JSON.stringify({ namespaceId: binding.namespaceId }));
    expect(result.ok).toBe(false);
  });

  const CONTROLLER_KEY: Readonly<Record<string, string>> = {
    "executionCluster.enabled: true": "executionCluster.enabled",
    "gatewayRouting.enabled: false": "network.gatewayRouting",
    "egressAuthority.enabled: false": "network.egressAuthority",
    "openshell.enabled: false": "drivers.sandbox",
  };
  const configCases: [string, Record<string, unknown>, (doc: Doc) => Doc][] = [
    [
      "executionCluster.enabled: true",
      { executionCluster: { enabled: true } },
      (doc) => ({ ...doc, executionCluster: { enabled: true } }),
    ],
    [
      "gatewayRouting.enabled: false",
      { gatewayRouting: { enabled: false } },
      (doc) => ({ ...doc, network: { ...doc.network, gatewayRouting: undefined } }),
    ],
    [
      "egressAuthority.enabled: false",
      { egressAuthority: { enabled: false } },
      (doc) => ({ ...doc, network: { ...doc.network, egressAuthority: undefined } }),
    ],
    [
      "openshell.enabled: false",
      { openshell: { enabled: false } },
      (doc) => ({
        ...doc,
        openshell: undefined,
        drivers: { ...(doc.drivers as object), sandbox: "none" },
      }),
    ],
  ];
  for (const [key, values, change] of configCases) {
    it(`configuration: ${key}`, async () => {
      await chartRefuses(values, key.split(":")[0] ?? key);
      const { raw, doc } = await accepted();
      const changed = JSON.parse(JSON.stringify(change(doc))) as Doc;
      expect(changed).not.toEqual(doc);
      const result = controllerAccepts(changed, raw);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      // The seed's exact sentence, then the controller's key (preprovisioned-startup.ts).
      const error = typeof result.error === "string" ? result.error : "";
      expect(error).toMatch(
        new RegExp(`^${escapeRegExp(STARTUP_MESSAGES.preprovisionedPrerequisites)} Not met: `),
      );
      expect(error).toContain(CONTROLLER_KEY[key] ?? "?");
    });
  }

  it("configuration (normal profile): executionCluster.enabled: true", async () => {
    const run = await helmTemplate({ values: { executionCluster: { enabled: true } } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("executionCluster.enabled");
    const { doc } = await rendered({});
    expect(controllerAccepts({ ...doc, executionCluster: { enabled: true } }, undefined)).toEqual({
      ok: false,
      error: STARTUP_MESSAGES.executionClusterUnsupported,
    });
  });
});

/**
 * Seed 001's sign-in conditions (issue 42): the chart refuses them in the preprovisioned
 * profile (templates/_auth.tpl); the same values rendered without the profile give the
 * configuration the controller's prerequisites then refuse under the chart's binding.
 */
describe("sign-in conditions: each chart refusal has a matching controller refusal", () => {
  const provider = { clientSecretName: "client", egressCidrs: ["10.40.0.0/24"] };
  const auth = (extra: Record<string, unknown>) => ({
    auth: {
      baseUrl: "https://occ.example.com",
      secretName: "occ-session",
      secretKey: "key",
      recoveryUserId: "prn_admin-1",
      ...extra,
    },
  });
  const cases: [string, Record<string, unknown>, string[]][] = [
    [
      "auth.passwordSignIn: recovery-only",
      auth({ passwordSignIn: "recovery-only", google: { enabled: true, ...provider } }),
      ["auth.passwordSignIn", "auth.google"],
    ],
    ["auth.google enabled", auth({ google: { enabled: true, ...provider } }), ["auth.google"]],
    [
      "auth.oidc enabled",
      auth({ oidc: { enabled: true, issuer: "https://idp.example.com", ...provider } }),
      ["auth.oidc"],
    ],
  ];
  for (const [name, values, keys] of cases) {
    it(name, async () => {
      const run = await helmTemplate({ valuesFiles: [CI_VALUES.preprovisioned], values });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`preprovisionedNamespace requires ${keys[0] ?? "?"}`);
      const { raw } = await rendered({ valuesFiles: [CI_VALUES.preprovisioned] });
      const { doc } = await rendered({
        valuesFiles: [CI_VALUES.preprovisioned],
        values: { ...values, preprovisionedNamespace: null },
      });
      expect(controllerAccepts(doc, undefined)).toEqual({ ok: true, value: undefined });
      const result = controllerAccepts(doc, raw);
      if (result.ok) throw new Error("expected a refusal");
      const error = typeof result.error === "string" ? result.error : "";
      const notMet = error.split(" Not met: ")[1] ?? "";
      expect(error.startsWith(STARTUP_MESSAGES.preprovisionedPrerequisites)).toBe(true);
      expect(notMet.split("; ").map((part) => part.split(" (needs ")[0])).toEqual(keys);
    });
  }
});

describe("chart refusals without a controller counterpart", () => {
  // agentNativeAdmin (refused in every profile, and named by the preprovisioned profile's seed
  // conditions): OCC has no browser surface for Agent gateways and the Installation
  // configuration no key for it, so only the chart can refuse it.
  it("agentNativeAdmin has no Installation configuration key", async () => {
    const { raw, doc } = await rendered({ valuesFiles: [CI_VALUES.preprovisioned] });
    expect(JSON.stringify(doc).toLowerCase()).not.toContain("nativeadmin");
    expect(() =>
      validateInstallationConfig({ ...doc, agentNativeAdmin: { enabled: true } }, "changed"),
    ).toThrow("agentNativeAdmin");
    expect(controllerAccepts(doc, raw)).toEqual({ ok: true, value: undefined });
  });

  // gatewayRouting.serviceType is an Envoy Gateway proxy setting (the EnvoyProxy resource); the
  // Installation configuration has no key for it, so only the chart can refuse it. This test
  // fails — and the parity case above must then be added — once the configuration carries it.
  it("gatewayRouting.serviceType does not reach the Installation configuration", async () => {
    const docs = await Promise.all(
      ["ClusterIP", "LoadBalancer", "NodePort"].map(async (serviceType) => {
        const { doc } = await rendered({
          valuesFiles: [CI_VALUES.default],
          values: { gatewayRouting: { serviceType } },
        });
        return doc;
      }),
    );
    expect(docs[1]).toEqual(docs[0]);
    expect(docs[2]).toEqual(docs[0]);
  });
});

describe("the processes' own startup path (loadInstallationConfig + startupProfile)", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  async function writtenConfig(doc: unknown): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "occ-parity-"));
    dirs.push(dir);
    const file = join(dir, "installation.yaml");
    await writeFile(file, stringify(doc));
    return file;
  }

  it("accepts the rendered file and environment and yields exactly the chart's binding", async () => {
    const { raw, doc } = await rendered(preprovisioned("ns_example"));
    const config = await loadInstallationConfig(await writtenConfig(doc));
    expect(startupProfile(config, { OCC_PREPROVISIONED_NAMESPACE: raw })).toEqual({
      namespaceId: "ns_example",
      uid: UID,
    });
  });

  it("the rendered worker command stops with the seed's sentence when a prerequisite is missing", async () => {
    const objects = await renderChart({ valuesFiles: [CI_VALUES.preprovisioned] });
    const worker = deploymentOf(objects, "worker");
    const raw = envOf(worker, "OCC_PREPROVISIONED_NAMESPACE");
    if (raw === undefined) throw new Error("no binding rendered");
    const doc = installationDocument(objects) as Doc;
    const withoutRouting = { ...doc, network: { ...doc.network, gatewayRouting: null } };
    const args = worker.spec.template.spec.containers[0]?.args ?? [];
    expect(args[0]).toBe("worker");
    const run = runOcc(args, {
      isolatedEnv: true,
      env: {
        OCC_CONFIG_PATH: await writtenConfig(withoutRouting),
        OCC_PREPROVISIONED_NAMESPACE: raw,
        OCC_DATABASE_URL: "postgres://unused.invalid/occ",
      },
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr + run.stdout).toContain(STARTUP_MESSAGES.preprovisionedPrerequisites);
  });
});
