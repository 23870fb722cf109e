import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { LABELS, type NamespaceId } from "../../../src/domain/index.js";
import { loadInstallationConfig } from "../../../src/config/installation-config.js";
import {
  createObjectClient,
  loadKubeConfig,
} from "../../../src/drivers/kubernetes/client/index.js";
import { TENANT_CLUSTER_ROLES } from "../../../src/drivers/kubernetes/rbac-rules.js";
import type { ComputeDriver } from "../../../src/drivers/compute.js";
import { createDriverSet } from "../../../src/drivers/factory.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import { CI_VALUES, renderChart } from "../../harness/helm.js";
import { HARNESS_IDENTITIES } from "../../harness/admission.js";
import { uniqueName } from "../../harness/kube.js";
import { admin, prepareExternal } from "../compute/fixtures.js";
import {
  call,
  createTenant,
  provisionResult,
  startTenantApi,
  type TenantApi,
} from "../tenant/fixtures.js";
import { installationDocument } from "../helm/rendered.js";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Issue 17, item 2: with the admission policies, the worker binds the tenant roles in the
 * managed namespaces it creates. The worker runs with the chart's cluster RBAC (harness
 * `grantChartClusterRoles`) and the Installation configuration the chart renders, whose
 * `kubernetes.tenantRoleBindings` names the chart's ServiceAccounts — replaced here by the
 * static users the test cluster authenticates the worker and the API as. Nobody applies a
 * RoleBinding by hand.
 */
let tenantApi: TenantApi;
let driver: ComputeDriver;
const worker = createObjectClient(loadKubeConfig(inject("env").kubeconfigs["occ-worker"]));

beforeAll(async () => {
  tenantApi = await startTenantApi();
  const doc = installationDocument(await renderChart({ valuesFiles: [CI_VALUES.default] })) as {
    kubernetes: Record<string, unknown>;
    drivers: Record<string, unknown>;
    openshell?: unknown;
  };
  expect(doc.kubernetes.tenantRoleBindings).toEqual({
    worker: { kind: "ServiceAccount", name: "occ-worker", namespace: "openclaw-system" },
    api: { kind: "ServiceAccount", name: "occ-api", namespace: "openclaw-system" },
  });
  const [workerUser, apiUser] = HARNESS_IDENTITIES;
  // The chart's document without OpenShell (no gateway in this test), identities as in the harness.
  const file = join(inject("env").runDir, `admission-config-${uniqueName("c")}.yaml`);
  const rest: Record<string, unknown> = { ...doc };
  delete rest["openshell"];
  await writeFile(
    file,
    JSON.stringify({
      ...rest,
      drivers: { ...doc.drivers, sandbox: "none" },
      kubernetes: { ...doc.kubernetes, tenantRoleBindings: { worker: workerUser, api: apiUser } },
    }),
  );
  const config = await loadInstallationConfig(file);
  driver = createDriverSet({ config, profile: { kind: "normal" }, client: worker }).compute;
});

afterAll(async () => {
  worker.close();
  await tenantApi.close();
});

/** One pass as the worker, recording a ready outcome as the worker does. */
const pass = (id: NamespaceId) => provisionResult(tenantApi, id, driver);

describe("a managed Namespace binds its own tenant roles (no hand-made RoleBinding)", () => {
  it("created through the API, it is ready after the first pass; both RoleBindings carry the tenant markers", async () => {
    const id = await createTenant(tenantApi, uniqueName("self-bound"));
    const result = await pass(id);
    expect(result.outcome).toBe("ready");
    const name = result.outcome === "ready" ? result.namespaceName : "";
    for (const [role, user] of [
      ["worker", "occ-worker"],
      ["api", "occ-api"],
    ] as const) {
      const rb = await admin.get("RoleBinding", {
        name: `openclaw-enterprise-tenant-${role}`,
        namespace: name,
      });
      expect(rb.roleRef?.name).toBe(TENANT_CLUSTER_ROLES[role]);
      expect(rb.subjects?.map((s) => [s.kind, s.name])).toEqual([["User", user]]);
      expect(rb.metadata.labels?.[LABELS.managedBy]).toBe("openclaw-enterprise");
      expect(rb.metadata.labels?.[LABELS.namespace]).toBe(id);
      expect(rb.metadata.annotations?.["openclaw.dev/namespace-id"]).toBe(id);
    }
    const quota = await admin.find("ResourceQuota", { name: "openclaw-quota", namespace: name });
    expect(quota).toBeDefined();

    // The API's RoleBinding works too: a Secret is stored through the API in that namespace.
    const res = await call(tenantApi, "POST", `/namespaces/${id}/secrets`, {
      body: { name: "token", value: "s3cret" },
    });
    expect(res.status, res.text).toBe(201);

    // A second pass writes nothing: the RoleBindings (and the owned objects) exist.
    const before = worker.counter.writes();
    expect((await pass(id)).outcome).toBe("ready");
    expect(worker.counter.writes()).toBe(before);
  });

  it("an external namespace without the operator's RoleBinding stays pending, and the worker binds nothing there", async () => {
    const prepared = await prepareExternal();
    const ns = prepared.metadata?.name ?? "";
    const id = await createTenant(tenantApi, uniqueName("ext"), ns);
    const result = await pass(id);
    expect(result.outcome).toBe("pending");
    expect(result.outcome === "pending" ? result.code : "").toBe("KUBERNETES_PERMISSION_PENDING");
    expect(await admin.list("RoleBinding", { namespace: ns })).toEqual([]);
    expect((await getNamespace(tenantApi.db, id))?.status).not.toBe("ready");
  });
});
