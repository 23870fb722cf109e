import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import {
  newNamespaceId,
  currentManagedName,
  type EnsureNamespaceResult,
} from "../../../src/domain/index.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import {
  clusterRoleBinding,
  createMissing,
  openshellTenantRoleBinding,
  tenantRoleBinding,
} from "../../../src/drivers/kubernetes/rbac-objects.js";
import {
  createOpenShellGateway,
  type OpenShellGateway,
} from "../../../src/drivers/openshell/gateway-client.js";
import type { ComputeDriver } from "../../../src/drivers/compute.js";
import { createDriverSet } from "../../../src/drivers/factory.js";
import { uniqueName } from "../../harness/kube.js";
import { startTestGateway, type TestGateway } from "../../harness/openshell-gateway.js";
import { admin, freshIdentity, type FreshIdentity } from "../../harness/preprovisioned.js";
import {
  CHART_NAMESPACE_ROLES,
  ensureChartRoles,
  normalChartClusterRoles,
} from "../../harness/rbac.js";
import { prepareExternal } from "../compute/fixtures.js";
import { passInput, profileConfig } from "../preprovisioned/fixtures.js";
import { sleep } from "../../harness/time.js";

// The normal profile: OCC applies the declared resources itself. The driver runs as a FRESH
// identity holding exactly what the chart and the operator grant the worker: the chart's
// worker namespace ClusterRole, bound cluster-wide as the chart binds it (namespaces are
// cluster-scoped: the driver creates the managed namespace and sets its labels), and — inside
// the tenant namespace only, by RoleBindings the operator creates — the chart-rendered
// `openclaw-enterprise-tenant-worker` and `openclaw-enterprise-tenant-openshell` ClusterRoles.
// Creating the declared Role and RoleBinding therefore passes the real RBAC escalation checks
// only through that tenant-namespace grant.
let gw: TestGateway;
let gateway: OpenShellGateway;
let identity: FreshIdentity;
let worker: ObjectClient;

beforeAll(async () => {
  gw = await startTestGateway({ token: "s3cret-token" });
  identity = await freshIdentity("os-worker");
  await ensureChartRoles(await normalChartClusterRoles());
  await createMissing(admin(), [
    clusterRoleBinding(
      `${identity.subject.name}-namespaces`,
      CHART_NAMESPACE_ROLES.worker,
      identity.subject,
    ),
  ]);
  worker = createObjectClient(loadKubeConfig(identity.kubeconfig));
});

afterAll(async () => {
  gateway.close();
  worker.close();
  await gw.stop();
});

const RESOURCES = [
  ["ServiceAccount", "openshell-sandbox"],
  ["Role", "openshell-sandbox"],
  ["RoleBinding", "openshell-sandbox"],
  ["NetworkPolicy", "openshell-sandbox-egress"],
] as const;

/** The declared Role of the OpenShell configuration (`profileConfig`), placed in `namespace`. */
const declaredRole = (namespace: string) => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "Role",
  metadata: { name: "openshell-sandbox", namespace },
  rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }],
});

/**
 * Passes every 250 ms for up to 30 s until `done`; the last result. The API server's RBAC caches
 * take a new RoleBinding in a moment, longer on a loaded machine.
 */
async function ensureUntil(
  ensure: () => Promise<EnsureNamespaceResult>,
  done: (r: EnsureNamespaceResult) => boolean,
): Promise<EnsureNamespaceResult> {
  const deadline = Date.now() + 30_000;
  let r = await ensure();
  while (Date.now() < deadline && !done(r)) {
    await sleep(250);
    r = await ensure();
  }
  return r;
}

describe("the OpenShell Sandbox Driver, normal profile, as the worker with the chart's roles", () => {
  const id = newNamespaceId();
  const name = currentManagedName(id);
  let driver: ComputeDriver;

  it("applies the declared resources with markers and the namespace labels, and ensures the Workspace (bearer token)", async () => {
    const tokenFile = join(inject("env").runDir, `openshell-token-${id}`);
    await writeFile(tokenFile, "s3cret-token\n");
    const base = profileConfig({}, gw.endpoint);
    if (base.openshell === null) throw new Error("no openshell");
    const config = { ...base, openshell: { ...base.openshell, tokenFile } };
    gateway = createOpenShellGateway(config.openshell);
    driver = createDriverSet({
      config,
      profile: { kind: "normal" },
      client: worker,
      sandbox: gateway,
    }).compute;

    // OCC creates the managed namespace; inside it the worker holds nothing yet.
    const first = await driver.ensureNamespace(passInput(id));
    expect(first).toMatchObject({ outcome: "pending", code: "KUBERNETES_PERMISSION_PENDING" });
    // What the operator does in that tenant namespace: bind the tenant roles to the worker —
    // first only tenant-worker: the hook's own refusal names the OpenShell role it lacks.
    await createMissing(admin(), [tenantRoleBinding(name, "worker", identity.subject)]);
    const reasonOf = (r: EnsureNamespaceResult) => ("reason" in r ? r.reason : "");
    let result = await ensureUntil(
      () => driver.ensureNamespace(passInput(id)),
      (r) => reasonOf(r).includes("tenant-openshell"),
    );
    expect(result).toMatchObject({ outcome: "pending", code: "KUBERNETES_PERMISSION_PENDING" });
    expect(reasonOf(result)).toContain(`(ClusterRole openclaw-enterprise-tenant-openshell) there`);
    await createMissing(admin(), [openshellTenantRoleBinding(name, identity.subject)]);

    result = await ensureUntil(
      () => driver.ensureNamespace(passInput(id)),
      (r) => r.outcome !== "pending",
    );
    expect(result).toMatchObject({ outcome: "ready", namespaceName: name });
    for (const [kind, objectName] of RESOURCES) {
      const live = await worker.get(kind, { name: objectName, namespace: name });
      expect(live.metadata.labels).toMatchObject({
        "app.kubernetes.io/managed-by": "openclaw-enterprise",
        "openclaw.dev/namespace": id,
      });
      expect(live.metadata.annotations).toMatchObject({ "openclaw.dev/namespace-id": id });
    }
    const ns = await worker.get("Namespace", { name });
    expect(ns.metadata.labels?.["openshell.nvidia.com/workspace-mode"]).toBe("operator");
    expect(gw.workspaces.get(name)?.phase).toBe("WORKSPACE_PHASE_ACTIVE");

    const writes = worker.counter.writes();
    expect((await driver.ensureNamespace(passInput(id))).outcome).toBe("ready");
    expect(worker.counter.writes()).toBe(writes);
  });

  it("a changed owned resource is converged back", async () => {
    const ref = { name: "openshell-sandbox", namespace: name };
    // Someone else (the administrator) changes the Role; the worker converges it back.
    await admin().patch("Role", ref, [{ op: "replace", path: "/rules/0/verbs", value: ["get"] }], {
      type: "json",
    });
    expect((await driver.ensureNamespace(passInput(id))).outcome).toBe("ready");
    const role = await worker.get("Role", ref);
    expect(role.rules?.[0]?.verbs).toEqual(["get", "list"]);
  });

  it("the grant is namespace-scoped: the worker cannot create the Role where it has no RoleBinding (403)", async () => {
    const elsewhere = uniqueName("os-elsewhere");
    await admin().create("Namespace", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: elsewhere },
    });
    await expect(worker.create("Role", declaredRole(elsewhere))).rejects.toMatchObject({
      category: "forbidden",
      status: 403,
    });
  });

  it("an external namespace: the OpenShell labels are the operator's — verified, never written", async () => {
    const tenant = newNamespaceId();
    const prepared = await prepareExternal();
    const ext = prepared.metadata?.name ?? "";
    await createMissing(admin(), [
      tenantRoleBinding(ext, "worker", identity.subject),
      openshellTenantRoleBinding(ext, identity.subject),
    ]);
    const input = passInput(tenant, { mode: "external", existingNamespace: ext });
    const result = await ensureUntil(
      () => driver.ensureNamespace(input),
      (r) => r.outcome !== "pending",
    );
    // Fails closed with the exact label to add; nothing of the hook's was written.
    expect(result).toMatchObject({ code: "KUBERNETES_OWNERSHIP_CONFLICT" });
    expect("reason" in result ? result.reason : "").toContain(
      `kubectl label namespace ${ext} --overwrite openshell.nvidia.com/workspace-mode=operator`,
    );
    const refused = await admin().get("Namespace", { name: ext });
    expect(refused.metadata.labels?.["openshell.nvidia.com/workspace-mode"]).toBeUndefined();
    expect(refused.metadata.labels?.["openclaw.dev/namespace"]).toBe(tenant); // bound by Compute
    for (const [kind, objectName] of RESOURCES) {
      expect(await admin().find(kind, { name: objectName, namespace: ext })).toBeUndefined();
    }
    expect(gw.workspaces.has(ext)).toBe(false);

    // The operator sets the label; the next pass is ready and leaves the operator's label as set.
    await admin().patch(
      "Namespace",
      { name: ext },
      { metadata: { labels: { "openshell.nvidia.com/workspace-mode": "operator" } } },
      { type: "merge" },
    );
    expect(await driver.ensureNamespace(input)).toMatchObject({ outcome: "ready" });
    expect(gw.workspaces.get(ext)?.phase).toBe("WORKSPACE_PHASE_ACTIVE");
    const writes = worker.counter.writes();
    const before = (await admin().get("Namespace", { name: ext })).metadata.resourceVersion;
    expect((await driver.ensureNamespace(input)).outcome).toBe("ready");
    expect(worker.counter.writes()).toBe(writes);
    expect((await admin().get("Namespace", { name: ext })).metadata.resourceVersion).toBe(before);
  });

  it("cleanup deletes the Workspace, then the declared resources, then the namespace", async () => {
    const first = await driver.deleteNamespace(passInput(id));
    expect(first.outcome).not.toBe("failed");
    expect(gw.workspaces.has(name)).toBe(false);
    expect(gw.calls).toContain("DeleteWorkspace");
    // Observed as the administrator: the worker's RoleBindings go with the namespace.
    for (const [kind, objectName] of RESOURCES) {
      const live = await admin().find(kind, { name: objectName, namespace: name });
      expect(live === undefined || live.metadata.deletionTimestamp !== undefined).toBe(true);
    }
  });

  it("a wrong bearer token is a permanent refusal", async () => {
    const bad = join(inject("env").runDir, `openshell-bad-token-${id}`);
    await writeFile(bad, "wrong");
    const base = profileConfig({}, gw.endpoint);
    if (base.openshell === null) throw new Error("no openshell");
    const other = createOpenShellGateway({ ...base.openshell, tokenFile: bad });
    try {
      await expect(other.health()).rejects.toMatchObject({ category: "rejected" });
    } finally {
      other.close();
    }
  });
});
