/**
 * Issue 42, the chart with OIDC and Google enabled (normal profile): the rendered
 * configuration, the API's Secret mounts and its egress read back from the rendered objects,
 * and the real API server accepts them (server-side dry run). The refusals are in
 * sign-in.test.ts.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { installationDocumentOf, loadChartValues } from "../../../src/config/chart-values.js";
import { findObject, renderChart, type RenderedObject } from "../../harness/helm.js";
import { deploymentOf, installationDocument } from "./rendered.js";
import {
  apiEgress,
  authMounts,
  expectAllAccepted,
  podOf,
  signIn,
  useSignInRelease,
  withAuth,
  type Values,
} from "./sign-in-values.js";

const release = useSignInRelease();

describe("normal profile with OIDC and Google enabled: what is rendered", () => {
  let objects: RenderedObject[];
  beforeAll(async () => {
    objects = await renderChart({ values: signIn(), namespace: release.namespace });
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
    const file = join(release.dir, "sign-in.yaml");
    await writeFile(file, JSON.stringify(signIn()));
    const values = await loadChartValues({ valuesFile: file, releaseNamespace: release.namespace });
    expect(installationDocumentOf(values, release.namespace)).toEqual(
      installationDocument(objects),
    );
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
    await expectAllAccepted(objects, release.namespace);
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
