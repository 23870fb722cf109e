import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installationDocumentOf, loadChartValues } from "../../../src/config/chart-values.js";
import { kubeAs, uniqueName } from "../../harness/kube.js";
import {
  CI_VALUES,
  findObject,
  helmTemplate,
  renderChart,
  type RenderedObject,
  type RenderOptions,
} from "../../harness/helm.js";
import { dryRun, installChartCrds } from "./api-server.js";
import { deploymentOf, installationDocument } from "./rendered.js";

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

/** Complete, valid sign-in values with both providers enabled (normal profile). */
function signIn(): { auth: Record<string, unknown>; agentNativeAdmin: { enabled: boolean } } {
  return {
    auth: {
      baseUrl: "https://occ.example.com",
      secretName: "occ-session",
      secretKey: "key",
      recoveryUserId: "prn_admin-1",
      passwordSignIn: "recovery-only",
      google: {
        enabled: true,
        clientSecretName: "google-client",
        allowedEmails: ["ann@example.com"],
        allowedDomains: ["example.com"],
        egressCidrs: ["142.250.0.0/15"],
      },
      oidc: {
        enabled: true,
        issuer: "https://idp.example.com:8443/realms/occ",
        displayName: "Example SSO",
        clientSecretName: "oidc-client",
        clientIdKey: "id",
        clientSecretKey: "secret",
        allowedGroups: ["platform"],
        groupRoles: [
          { group: "platform-admins", role: "admin" },
          { group: "team-a", role: "role_viewer", namespaceId: "ns_team-a" },
        ],
        egressCidrs: ["10.40.0.0/24", "10.41.0.7/32"],
      },
    },
    agentNativeAdmin: { enabled: false },
  };
}

type Values = Record<string, unknown>;
/** `base` with `auth.<path>` (dotted) set to `value`. */
function withAuth(base: Values, path: string, value: unknown): Values {
  const out = structuredClone(base);
  const keys = path.split(".");
  let cur = out.auth as Values;
  for (const key of keys.slice(0, -1)) cur = cur[key] as Values;
  cur[keys[keys.length - 1] as string] = value;
  return out;
}

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

let releaseNamespace: string;
let dir: string;
beforeAll(async () => {
  await installChartCrds();
  releaseNamespace = uniqueName("helm-signin");
  await kubeAs("admin").core.createNamespace({ body: { metadata: { name: releaseNamespace } } });
  dir = await mkdtemp(join(tmpdir(), "occ-signin-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function expectAllAccepted(objects: readonly RenderedObject[]): Promise<void> {
  const refusedObjects: string[] = [];
  for (const obj of objects) {
    const res = await dryRun(obj, releaseNamespace);
    if (res.status !== 200 && res.status !== 201) {
      refusedObjects.push(`${obj.kind} ${obj.metadata.name}: ${res.status}`);
    }
  }
  expect(refusedObjects).toEqual([]);
}

interface Volume {
  name: string;
  secret?: { secretName: string; items: { key: string; path: string }[]; defaultMode: number };
}
interface Mount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}
function podOf(objects: readonly RenderedObject[], component: "api" | "worker") {
  const spec = (
    deploymentOf(objects, component) as unknown as {
      spec: { template: { spec: { volumes: Volume[]; containers: { volumeMounts: Mount[] }[] } } };
    }
  ).spec.template.spec;
  return { volumes: spec.volumes, mounts: spec.containers[0]?.volumeMounts ?? [] };
}
interface EgressRule {
  to: { ipBlock?: { cidr: string } }[];
  ports: { protocol: string; port: number }[];
}
function apiEgress(objects: readonly RenderedObject[]): EgressRule[] {
  const policy = findObject(objects, "NetworkPolicy", "occ-openclaw-enterprise-api");
  return (policy as unknown as { spec: { egress: EgressRule[] } }).spec.egress;
}
const authMounts = (mounts: Mount[]) => mounts.filter((m) => m.name.startsWith("auth-"));

describe("seed 001: a values file written to its letter (preprovisioned profile)", () => {
  it("renders, the API server accepts every object, and the configuration has no auth section", async () => {
    const objects = await renderChart({
      valuesFiles: [CI_VALUES.preprovisioned],
      values: SEED_001,
      namespace: releaseNamespace,
    });
    expect(objects.some((o) => o.kind === "Job")).toBe(false);
    const doc = installationDocument(objects) as Values;
    expect(doc.auth).toBe(undefined);
    expect(authMounts(podOf(objects, "api").mounts)).toEqual([]);
    await expectAllAccepted(objects);
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

describe("normal profile with OIDC and Google enabled: what is rendered", () => {
  let objects: RenderedObject[];
  beforeAll(async () => {
    objects = await renderChart({ values: signIn(), namespace: releaseNamespace });
  });

  it("the configuration's auth section, with the mounted file paths", () => {
    const doc = installationDocument(objects) as Values;
    expect(doc.auth).toStrictEqual({
      baseUrl: "https://occ.example.com",
      sessionKeyFile: "/etc/occ/auth/session/key",
      recoveryUserId: "prn_admin-1",
      passwordSignIn: "recovery-only",
      google: {
        clientIdFile: "/etc/occ/auth/google/client-id",
        clientSecretFile: "/etc/occ/auth/google/client-secret",
        allowedEmails: ["ann@example.com"],
        allowedDomains: ["example.com"],
      },
      oidc: {
        issuer: "https://idp.example.com:8443/realms/occ",
        displayName: "Example SSO",
        clientIdFile: "/etc/occ/auth/oidc/id",
        clientSecretFile: "/etc/occ/auth/oidc/secret",
        allowedEmails: [],
        allowedDomains: [],
        allowedGroups: ["platform"],
        groupRoles: [
          { group: "platform-admins", role: "admin" },
          { group: "team-a", role: "role_viewer", namespaceId: "ns_team-a" },
        ],
      },
    });
  });

  it("`occ preprovisioned --values` derives the same document (src/config/chart-values.ts)", async () => {
    const file = join(dir, "sign-in.yaml");
    await writeFile(file, JSON.stringify(signIn()));
    const values = await loadChartValues({ valuesFile: file, releaseNamespace });
    expect(installationDocumentOf(values, releaseNamespace)).toEqual(installationDocument(objects));
  });

  it("the API mounts exactly the named keys of each Secret, read-only; the worker none", () => {
    const api = podOf(objects, "api");
    expect(authMounts(api.mounts)).toEqual([
      { name: "auth-session", mountPath: "/etc/occ/auth/session", readOnly: true },
      { name: "auth-google", mountPath: "/etc/occ/auth/google", readOnly: true },
      { name: "auth-oidc", mountPath: "/etc/occ/auth/oidc", readOnly: true },
    ]);
    const secrets = api.volumes.filter((v) => v.name.startsWith("auth-")).map((v) => v.secret);
    expect(secrets).toEqual([
      { secretName: "occ-session", items: [{ key: "key", path: "key" }], defaultMode: 0o440 },
      {
        secretName: "google-client",
        items: [
          { key: "client-id", path: "client-id" },
          { key: "client-secret", path: "client-secret" },
        ],
        defaultMode: 0o440,
      },
      {
        secretName: "oidc-client",
        items: [
          { key: "id", path: "id" },
          { key: "secret", path: "secret" },
        ],
        defaultMode: 0o440,
      },
    ]);
    const worker = podOf(objects, "worker");
    expect(authMounts(worker.mounts)).toEqual([]);
    expect(JSON.stringify(deploymentOf(objects, "worker"))).not.toMatch(/occ-session|-client"/);
  });

  it("the API's NetworkPolicy lets it reach each provider's egressCidrs (OIDC on the issuer's port)", () => {
    const egress = apiEgress(objects);
    expect(egress.slice(-2)).toEqual([
      { to: [{ ipBlock: { cidr: "142.250.0.0/15" } }], ports: [{ protocol: "TCP", port: 443 }] },
      {
        to: [{ ipBlock: { cidr: "10.40.0.0/24" } }, { ipBlock: { cidr: "10.41.0.7/32" } }],
        ports: [{ protocol: "TCP", port: 8443 }],
      },
    ]);
    const worker = findObject(objects, "NetworkPolicy", "occ-openclaw-enterprise-worker");
    expect(JSON.stringify(worker)).not.toContain("10.40.0.0/24");
  });

  it("an issuer without a port → 443; disabled providers add no rule, mount or section", async () => {
    const plain = await renderChart({
      values: withAuth(signIn(), "oidc.issuer", "https://idp.example.com"),
    });
    expect(apiEgress(plain).at(-1)?.ports).toEqual([{ protocol: "TCP", port: 443 }]);
    const defaults = await renderChart();
    expect(apiEgress(defaults)).toHaveLength(3);
    expect(authMounts(podOf(defaults, "api").mounts)).toEqual([]);
    expect((installationDocument(defaults) as Values).auth).toBe(undefined);
  });

  it("the API server accepts every rendered object", async () => {
    await expectAllAccepted(objects);
  });

  it("auth.oidc.caSecretName: the API alone mounts the CA key and trusts it (NODE_EXTRA_CA_CERTS)", async () => {
    const withCa = await renderChart({
      values: withAuth(signIn(), "oidc.caSecretName", "idp-ca"),
    });
    const api = podOf(withCa, "api");
    expect(authMounts(api.mounts).at(-1)).toEqual({
      name: "auth-oidc-ca",
      mountPath: "/etc/occ/auth/oidc-ca",
      readOnly: true,
    });
    expect(api.volumes.find((v) => v.name === "auth-oidc-ca")?.secret).toEqual({
      secretName: "idp-ca",
      items: [{ key: "ca.crt", path: "ca.crt" }],
      defaultMode: 0o444,
    });
    const rendered = (c: "api" | "worker", from: readonly RenderedObject[]) =>
      JSON.stringify(deploymentOf(from, c));
    expect(rendered("api", withCa)).toContain(
      '{"name":"NODE_EXTRA_CA_CERTS","value":"/etc/occ/auth/oidc-ca/ca.crt"}',
    );
    expect(rendered("worker", withCa)).not.toContain("NODE_EXTRA_CA_CERTS");
    expect(rendered("api", objects)).not.toContain("NODE_EXTRA_CA_CERTS");
  });
});
