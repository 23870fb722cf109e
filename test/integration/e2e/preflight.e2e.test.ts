import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { ANNOTATIONS, LABELS, LIFECYCLE, newNamespaceId } from "../../../src/domain/index.js";
import { loadInstallationConfig } from "../../../src/config/installation-config.js";
import {
  createObjectClient,
  loadKubeConfig,
} from "../../../src/drivers/kubernetes/client/index.js";
import { namespaceInspectorOf } from "../../../src/drivers/namespace-inspector.js";
import { runOcc } from "../../harness/occ.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { admin, grantChartRolesBeforeAll, prepareExternal } from "../compute/fixtures.js";

grantChartRolesBeforeAll();

/** The test cluster's worker and API identities (users, not the chart's ServiceAccounts). */
const IDENTITIES = ["--worker", "user:occ-worker", "--api", "user:occ-api"];

function preflight(name: string, extra: readonly string[] = [], config = "") {
  return runOcc(
    [
      "namespaces",
      "preflight",
      name,
      "--kubeconfig",
      inject("env").kubeconfigs.admin,
      ...IDENTITIES,
      ...extra,
    ],
    { env: { OCC_CONFIG_PATH: config } },
  );
}

describe("occ namespaces preflight (read-only, the worker's checks, every failure listed)", () => {
  it("lists all three problems and exits 1; exits 0 once the operator fixed them", async () => {
    const ns = await prepareExternal({
      omitAnnotations: [ANNOTATIONS.lifecycle],
      labels: { [LABELS.podSecurityEnforce]: "baseline" },
    });
    const name = ns.metadata?.name ?? "";
    const policy = await admin.create("NetworkPolicy", {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "allow-all", namespace: name },
      spec: { podSelector: {}, ingress: [{}], policyTypes: ["Ingress"] },
    });
    const before = (await admin.get("Namespace", { name })).metadata.resourceVersion;

    const failing = preflight(name);
    expect(failing.status, failing.stderr).toBe(1);
    const lines = failing.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`${name}: 5 requirement(s) not met:`);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`✗ \\[lifecycle ${ANNOTATIONS.lifecycle}\\] .*"external"`)),
      expect.stringMatching(new RegExp(`✗ \\[pod-security ${LABELS.podSecurityEnforce}\\] `)),
      expect.stringMatching(/✗ \[network-policies\] .*1 NetworkPolicy object\(s\) not owned/),
      expect.stringMatching(
        new RegExp(
          `✗ \\[role-binding openclaw-enterprise-tenant-worker\\] the worker \\(user:occ-worker\\) .*kubectl create rolebinding openclaw-enterprise-tenant-worker -n ${name} --clusterrole openclaw-enterprise-tenant-worker --user occ-worker`,
        ),
      ),
      expect.stringMatching(
        /✗ \[role-binding openclaw-enterprise-tenant-api\] the API \(user:occ-api\) .*--user occ-api/,
      ),
    ]);
    // Read-only: the namespace was not touched.
    expect((await admin.get("Namespace", { name })).metadata.resourceVersion).toBe(before);

    await admin.patch(
      "Namespace",
      { name },
      {
        metadata: {
          annotations: { [ANNOTATIONS.lifecycle]: LIFECYCLE.external },
          labels: { [LABELS.podSecurityEnforce]: "restricted" },
        },
      },
      { type: "merge" },
    );
    await admin.delete(
      "NetworkPolicy",
      { name: "allow-all", namespace: name },
      { uid: policy.metadata.uid ?? "" },
    );
    const grantedWorkerOnly = preflight(name);
    expect(grantedWorkerOnly.status).toBe(1);
    await bindTenantRole(name, "occ-worker");
    const apiLeft = preflight(name);
    expect(apiLeft.stdout.trimEnd().split("\n")).toEqual([
      `${name}: 1 requirement(s) not met:`,
      expect.stringMatching(/✗ \[role-binding openclaw-enterprise-tenant-api\] the API/),
    ]);
    await bindTenantRole(name, "occ-api");
    const passing = preflight(name);
    expect(passing.stdout).toBe(`ok: ${name} can be selected as existingNamespace\n`);
    expect(passing.status).toBe(0);
  });

  it("a namespace that does not exist fails with the fix", () => {
    const res = preflight("no-such-namespace-xyz");
    expect(res.status).toBe(1);
    expect(res.stdout).toMatch(/✗ \[missing\] .*the operator must create and prepare it/);
  });

  it("lists another namespace that claims the tenant, and OpenShell labels when OpenShell is configured", async () => {
    const tenant = newNamespaceId();
    const ns = await prepareExternal();
    const name = ns.metadata?.name ?? "";
    await bindTenantRole(name, "occ-worker");
    await bindTenantRole(name, "occ-api");
    // Another namespace already carries this tenant's label.
    await prepareExternal({ labels: { [LABELS.namespace]: tenant } });
    const dir = await mkdtemp(join(tmpdir(), "occ-preflight-"));
    try {
      const config = join(dir, "config.yaml");
      await writeFile(
        config,
        [
          "drivers:",
          "  sandbox: openshell",
          "openshell:",
          "  endpoint: openshell.openshell-system:8080",
          "  gateway:",
          "    operatorNamespaceLabels:",
          '      openshell.io/workspace: "true"',
          "",
        ].join("\n"),
      );
      const res = preflight(name, ["--namespace-id", tenant], config);
      expect(res.status, res.stderr).toBe(1);
      expect(res.stdout.trimEnd().split("\n")).toEqual([
        `${name}: 3 requirement(s) not met:`,
        expect.stringMatching(
          new RegExp(
            `✗ \\[exclusive-claim ${LABELS.namespace}\\] another Kubernetes namespace already claims tenant ${tenant}`,
          ),
        ),
        expect.stringContaining(
          `✗ [operator-label openshell.io/workspace] missing label openshell.io/workspace=true (openshell.gateway.operatorNamespaceLabels): kubectl label namespace ${name} --overwrite openshell.io/workspace=true — OCC never writes it on an external namespace`,
        ),
        expect.stringContaining(
          "✗ [role-binding openclaw-enterprise-tenant-openshell] the worker (OpenShell) (user:occ-worker)",
        ),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the API's reader for the console (src/drivers/namespace-inspector.ts)", () => {
  it("as occ-api with the chart's API role: the CLI's verdicts and the Events; as an identity without that role: refused, never a pass", async () => {
    const ns = await prepareExternal({ omitLabels: [LABELS.podSecurityEnforce] });
    const name = ns.metadata?.name ?? "";
    const config = await loadInstallationConfig(undefined);
    const asApi = createObjectClient(loadKubeConfig(inject("env").kubeconfigs["occ-api"]));
    const asWorker = createObjectClient(loadKubeConfig(inject("env").kubeconfigs["occ-worker"]));
    try {
      const failures = await namespaceInspectorOf(asApi, config).preflight(name);
      // The same verdicts the CLI prints: the label, and (chart ServiceAccounts by default)
      // both tenant RoleBindings.
      expect(failures.map((f) => `${f.check} ${f.key ?? ""}`).sort()).toEqual([
        `pod-security ${LABELS.podSecurityEnforce}`,
        "role-binding openclaw-enterprise-tenant-api",
        "role-binding openclaw-enterprise-tenant-worker",
      ]);
      expect(await namespaceInspectorOf(asApi, config).candidates(10_000)).toContain(name);
      expect(await namespaceInspectorOf(asApi, config).events(name, 5)).toEqual([]);
      // The worker's identity may not list ClusterRoleBindings nor Events: fail closed, with the fix.
      const refused = namespaceInspectorOf(asWorker, config);
      const missing = { reason: "permission-missing" };
      await expect(refused.preflight(name)).rejects.toMatchObject(missing);
      await expect(refused.events(name, 5)).rejects.toMatchObject(missing);
      await expect(refused.preflight(name)).rejects.toThrow(/openclaw-enterprise-api-namespaces/);
    } finally {
      asApi.close();
      asWorker.close();
    }
  });
});
