import { describe, expect, it } from "vitest";
import { CI_VALUES, helmTemplate, renderChart, type RenderOptions } from "../../harness/helm.js";
import { installationDocument } from "./rendered.js";
import {
  authMounts,
  expectAllAccepted,
  podOf,
  signIn,
  useSignInRelease,
  withAuth,
  type Values,
} from "./sign-in-values.js";

/**
 * Issue 42, the chart: `auth.*` and `agentNativeAdmin`. A values file written to seed 001's
 * letter installs in the preprovisioned profile; each of the seed's four sign-in conditions
 * unmet is refused naming it; every cross-field rule is refused naming its key; with OIDC and
 * Google enabled the rendered configuration, the API's Secret mounts and its egress are read
 * back from the rendered objects, and the real API server accepts them (server-side dry run).
 */
const UID = "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60";

/** Seed 001, "Set the value", key by key (over the ci file's image, database and OpenShell). */
const SEED_001 = {
  preprovisionedNamespace: { namespaceId: "ns_example", uid: UID },
  executionCluster: { enabled: false },
  gatewayRouting: { enabled: true, serviceType: "ClusterIP" },
  egressAuthority: { enabled: true },
  auth: { passwordSignIn: "all", google: { enabled: false }, oidc: { enabled: false } },
  agentNativeAdmin: { enabled: false },
};

async function refused(opts: RenderOptions): Promise<string> {
  const run = await helmTemplate(opts);
  expect(run.code, run.stdout.slice(0, 200)).not.toBe(0);
  expect(run.stdout).toBe("");
  return run.stderr;
}

async function renders(opts: RenderOptions): Promise<void> {
  const run = await helmTemplate(opts);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
}

const release = useSignInRelease();

describe("seed 001: a values file written to its letter (preprovisioned profile)", () => {
  it("renders, the API server accepts every object, and the configuration has no auth section", async () => {
    const objects = await renderChart({
      valuesFiles: [CI_VALUES.preprovisioned],
      values: SEED_001,
      namespace: release.namespace,
    });
    expect(objects.some((o) => o.kind === "Job")).toBe(false);
    const doc = installationDocument(objects) as Values;
    expect(doc.auth).toBe(undefined);
    expect(authMounts(podOf(objects, "api").mounts)).toEqual([]);
    await expectAllAccepted(objects, release.namespace);
  });

  // Each unmet condition is refused as the seed states it, before any other sign-in rule. The
  // values are otherwise complete: without the profile the same values render (or, for
  // agentNativeAdmin, are refused by the normal profile's own rule).
  const seedCases: [string, Values, string][] = [
    [
      "auth.passwordSignIn: recovery-only",
      signIn(),
      "preprovisionedNamespace requires auth.passwordSignIn: all (not recovery-only)",
    ],
    [
      "auth.google enabled",
      withAuth(withAuth(signIn(), "oidc.enabled", false), "passwordSignIn", "all"),
      "preprovisionedNamespace requires auth.google disabled: set auth.google.enabled: false",
    ],
    [
      "auth.oidc enabled",
      withAuth(withAuth(signIn(), "google.enabled", false), "passwordSignIn", "all"),
      "preprovisionedNamespace requires auth.oidc disabled: set auth.oidc.enabled: false",
    ],
  ];
  for (const [name, values, message] of seedCases) {
    it(`refuses ${name}, naming the seed's condition`, async () => {
      const ci = [CI_VALUES.preprovisioned];
      expect(await refused({ valuesFiles: ci, values })).toContain(message);
      await renders({ valuesFiles: ci, values: { ...values, preprovisionedNamespace: null } });
    });
  }

  it("refuses agentNativeAdmin enabled, naming the seed's condition", async () => {
    const values = { agentNativeAdmin: { enabled: true } };
    expect(await refused({ valuesFiles: [CI_VALUES.preprovisioned], values })).toContain(
      "preprovisionedNamespace requires agentNativeAdmin disabled: set agentNativeAdmin.enabled: false",
    );
  });
});

describe("cross-field rules: each refusal names its key", () => {
  it("the complete values render (the baseline each case changes one key of)", async () => {
    await renders({ values: signIn() });
  });

  for (const provider of ["google", "oidc"] as const) {
    // Only this provider enabled, password sign-in for all: the rule is the provider's own.
    const only = withAuth(
      withAuth(signIn(), `${provider === "google" ? "oidc" : "google"}.enabled`, false),
      "passwordSignIn",
      "all",
    );
    const cases: [string, unknown, string][] = [
      ["recoveryUserId", "", `auth.${provider}.enabled requires auth.recoveryUserId`],
      ["baseUrl", "", `auth.${provider}.enabled requires auth.baseUrl to be an https:// URL`],
      [
        "baseUrl",
        "http://occ.example.com",
        `auth.${provider}.enabled requires auth.baseUrl to be an https:// URL`,
      ],
      ["secretName", "", `auth.${provider}.enabled requires auth.secretName`],
      [
        `${provider}.clientSecretName`,
        "",
        `auth.${provider}.clientSecretName is required when auth.${provider}.enabled is true`,
      ],
      [
        `${provider}.clientSecretKey`,
        provider === "oidc" ? "id" : "client-id",
        `auth.${provider}.clientIdKey and auth.${provider}.clientSecretKey must differ`,
      ],
      [
        `${provider}.egressCidrs`,
        [],
        `auth.${provider}.egressCidrs must list at least one CIDR when auth.${provider}.enabled and networkPolicy.enabled are true`,
      ],
    ];
    for (const [path, value, message] of cases) {
      it(`auth.${provider} enabled, auth.${path}: ${JSON.stringify(value)}`, async () => {
        expect(await refused({ values: withAuth(only, path, value) })).toContain(message);
      });
    }
    it(`auth.${provider} enabled with agentNativeAdmin.enabled: true`, async () => {
      const values = { ...only, agentNativeAdmin: { enabled: true } };
      expect(await refused({ values })).toContain(
        `auth.${provider}.enabled requires agentNativeAdmin.enabled: false`,
      );
    });
  }

  it("auth.oidc.issuer must be https", async () => {
    const values = withAuth(signIn(), "oidc.issuer", "http://idp.example.com");
    expect(await refused({ values })).toContain(
      "auth.oidc.issuer must be an https:// URL when auth.oidc.enabled is true",
    );
  });

  it("without networkPolicy.enabled, no egressCidrs are needed", async () => {
    const values = withAuth(signIn(), "oidc.egressCidrs", []);
    await renders({ values: { ...values, networkPolicy: { enabled: false } } });
  });

  it("auth.baseUrl: http:// only on a loopback host (as the API's startup check)", async () => {
    const values = { auth: { baseUrl: "http://occ.example.com" } };
    expect(await refused({ values })).toContain(
      "auth.baseUrl: http:// is allowed only on a loopback host",
    );
    for (const baseUrl of ["http://127.0.0.1:8080", "http://localhost", "http://[::1]:8080"]) {
      await renders({ values: { auth: { baseUrl } } });
    }
  });

  it("auth.passwordSignIn: recovery-only needs a provider", async () => {
    const values = { auth: { passwordSignIn: "recovery-only" } };
    expect(await refused({ values })).toContain(
      "auth.passwordSignIn: recovery-only requires auth.google.enabled or auth.oidc.enabled: true",
    );
  });

  it("agentNativeAdmin.enabled: true is not supported (normal profile)", async () => {
    const values = { agentNativeAdmin: { enabled: true, domain: "admin.example.com" } };
    expect(await refused({ values })).toContain(
      "agentNativeAdmin.enabled: true is not supported by this release: OCC has no browser surface for Agent gateways",
    );
    await renders({
      values: { agentNativeAdmin: { enabled: false, domain: "admin.example.com" } },
    });
  });

  for (const [values, path] of [
    [{ auth: { passwordSignIn: "none" } }, "/auth/passwordSignIn"],
    [{ auth: { recoveryUserId: "admin" } }, "/auth/recoveryUserId"],
    [{ auth: { baseUrl: "https://occ.example.com/console" } }, "/auth/baseUrl"],
    [{ auth: { oidc: { groupRoles: [{ group: "g" }] } } }, "/auth/oidc/groupRoles/0"],
    [{ auth: { google: { issuer: "https://x" } } }, "additional properties 'issuer' not allowed"],
    [{ agentNativeAdmin: { admins: [] } }, "additional properties 'admins' not allowed"],
  ] as const) {
    it(`the schema refuses ${JSON.stringify(values)}, naming ${path}`, async () => {
      expect(await refused({ values })).toContain(path);
    });
  }
});
