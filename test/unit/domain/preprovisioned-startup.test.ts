import { describe, expect, it } from "vitest";
import {
  ConfigurationError,
  validateInstallationConfig,
} from "../../../src/config/installation-config.js";
import {
  STARTUP_MESSAGES,
  StartupRefusedError,
  checkPreprovisionedPrerequisites,
  preprovisionedBindingFromEnv,
  startupProfile,
} from "../../../src/services/preprovisioned/startup.js";

const EXACT =
  "A preprovisioned Namespace requires single-cluster bundled Kubernetes and OpenShell Drivers with Credential Proxy and gateway routing.";
const UID = "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60";
const ENV = {
  OCC_PREPROVISIONED_NAMESPACE: JSON.stringify({ namespaceId: "ns_example", uid: UID }),
};

const complete = {
  drivers: { compute: "kubernetes", configuration: "kubernetes", sandbox: "openshell" },
  network: {
    gatewayRouting: { gatewayNamespace: "gw", gatewayName: "g", envoyNamespace: "envoy" },
    egressAuthority: { namespace: "proxy", port: 3128 },
  },
  openshell: {
    endpoint: "openshell:8080",
    gateway: { operatorNamespaceLabels: { "openshell.nvidia.com/mode": "operator" } },
  },
  executionCluster: { enabled: false },
};

function without(path: string, value: unknown): Record<string, unknown> {
  const doc = structuredClone(complete) as Record<string, Record<string, unknown>>;
  const [top, key] = path.split(".") as [string, string | undefined];
  if (key === undefined) doc[top] = value as Record<string, unknown>;
  else (doc[top] as Record<string, unknown>)[key] = value;
  return doc;
}

describe("the §2 startup prerequisites", () => {
  it("the seed's sentence is the message, verbatim", () => {
    expect(STARTUP_MESSAGES.preprovisionedPrerequisites).toBe(EXACT);
  });

  it("a complete configuration passes", () => {
    const config = validateInstallationConfig(complete, "t");
    expect(checkPreprovisionedPrerequisites(config)).toEqual({ ok: true, value: undefined });
    expect(startupProfile(config, ENV)).toEqual({ namespaceId: "ns_example", uid: UID });
  });

  it.each([
    ["an installed Compute Driver", "drivers.compute", { module: "./x.js" }, "drivers.compute"],
    [
      "an installed Configuration Driver",
      "drivers.configuration",
      { module: "./x.js" },
      "drivers.configuration",
    ],
    ["no OpenShell Sandbox Driver", "drivers.sandbox", "none", "drivers.sandbox"],
    ["no gateway routing", "network.gatewayRouting", null, "network.gatewayRouting"],
    ["an execution cluster", "executionCluster", { enabled: true }, "executionCluster.enabled"],
    ["no Credential Proxy", "network.egressAuthority", null, "network.egressAuthority"],
    ["drivers.sandbox: openshell without an openshell block", "openshell", null, "openshell"],
  ])("%s → the seed's exact sentence, then the key", (_, path, value, key) => {
    const config = validateInstallationConfig(without(path, value), "t");
    const checked = checkPreprovisionedPrerequisites(config);
    if (checked.ok) throw new Error("expected a refusal");
    expect(checked.error.startsWith(`${EXACT} Not met: ${key} (needs `)).toBe(true);
    expect(checked.error.split("Not met:")[1]?.match(/\(needs /g)).toHaveLength(1);
    expect(() => startupProfile(config, ENV)).toThrow(new StartupRefusedError(checked.error));
  });

  it("every unmet key is named, in one message", () => {
    const doc = without("network.egressAuthority", null);
    (doc.network as Record<string, unknown>).gatewayRouting = null;
    const checked = checkPreprovisionedPrerequisites(validateInstallationConfig(doc, "t"));
    expect(checked).toEqual({
      ok: false,
      error: `${EXACT} Not met: network.gatewayRouting (needs the Compute gateway routing); network.egressAuthority (needs the Credential Proxy — the seed's alternative, the OpenShell Git transport (chart value openshellGit), is not supported by this release).`,
    });
  });

  const provider = { clientIdFile: "/etc/occ/id", clientSecretFile: "/etc/occ/secret" };
  const signedIn = { baseUrl: "https://occ.example.com", recoveryUserId: "prn_recovery" };
  const googleFix =
    "auth.google (needs auth.google disabled: remove the auth.google section (chart: set auth.google.enabled: false))";
  const oidcFix =
    "auth.oidc (needs auth.oidc disabled: remove the auth.oidc section (chart: set auth.oidc.enabled: false))";
  it.each([
    ["passwordSignIn: all, written out", { passwordSignIn: "all" }, null],
    ["auth.google enabled", { ...signedIn, google: provider }, googleFix],
    [
      "auth.oidc enabled",
      { ...signedIn, oidc: { issuer: "https://idp.example.com", ...provider } },
      oidcFix,
    ],
    [
      "passwordSignIn: recovery-only with auth.google",
      { ...signedIn, passwordSignIn: "recovery-only", google: provider },
      `auth.passwordSignIn (needs all, not recovery-only); ${googleFix}`,
    ],
  ])("sign-in (seed 001, as the chart): %s", (_, auth, notMet) => {
    const checked = checkPreprovisionedPrerequisites(
      validateInstallationConfig({ ...complete, auth }, "t"),
    );
    if (notMet === null) expect(checked).toEqual({ ok: true, value: undefined });
    else expect(checked).toEqual({ ok: false, error: `${EXACT} Not met: ${notMet}.` });
    // Without a binding, the normal profile allows every sign-in setting.
    expect(startupProfile(validateInstallationConfig({ ...complete, auth }, "t"), {})).toBeNull();
  });

  it("without a binding, drivers.sandbox: openshell without an openshell block is refused by name", () => {
    const config = validateInstallationConfig(without("openshell", null), "t");
    expect(() => startupProfile(config, {})).toThrow(
      new StartupRefusedError(STARTUP_MESSAGES.openshellSettingsMissing),
    );
  });

  it("without a binding, the profile checks do not apply", () => {
    const config = validateInstallationConfig({}, "t");
    expect(startupProfile(config, {})).toBeNull();
    expect(startupProfile(config, { OCC_PREPROVISIONED_NAMESPACE: "" })).toBeNull();
  });

  it("without a binding, an execution cluster is refused (this release has none)", () => {
    const config = validateInstallationConfig({ executionCluster: { enabled: true } }, "t");
    expect(() => startupProfile(config, {})).toThrow(STARTUP_MESSAGES.executionClusterUnsupported);
  });

  it.each([
    ["bad JSON", "{", /not valid JSON/],
    ["an extra key", JSON.stringify({ namespaceId: "ns_a", uid: UID, x: 1 }), /\.x is not allowed/],
    [
      "an uppercase UID",
      JSON.stringify({ namespaceId: "ns_a", uid: UID.toUpperCase() }),
      /uppercase/,
    ],
    ["a bad ID", JSON.stringify({ namespaceId: "ns a", uid: UID }), /namespaceId must match/],
  ])("a malformed binding (%s) names the problem", (_, raw, expected) => {
    let caught: unknown;
    try {
      preprovisionedBindingFromEnv({ OCC_PREPROVISIONED_NAMESPACE: raw });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    expect((caught as Error).message).toMatch(expected);
  });
});
