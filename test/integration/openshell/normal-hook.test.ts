import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import {
  newNamespaceId,
  currentManagedName,
  type HasMetadata,
  type K8sNamespace,
} from "../../../src/domain/index.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import {
  createOpenShellGateway,
  type OpenShellGateway,
} from "../../../src/drivers/openshell/gateway-client.js";
import { bundledComputeDriver, openshellHook } from "../../../src/occ/compute.js";
import { startTestGateway, type TestGateway } from "../../harness/openshell-gateway.js";
import { passInput, profileConfig } from "../preprovisioned/fixtures.js";

// The normal profile: OCC applies the declared resources itself. Creating the declared Role
// needs RBAC escalation rights the tenant roles do not carry, so this case runs the driver as
// the cluster administrator; the preprovisioned tests run with the profile's real identities.
let gw: TestGateway;
let gateway: OpenShellGateway;
let client: ObjectClient;

beforeAll(async () => {
  gw = await startTestGateway({ token: "s3cret-token" });
  client = createObjectClient(loadKubeConfig(inject("env").kubeconfigs.admin));
});

afterAll(async () => {
  gateway.close();
  client.close();
  await gw.stop();
});

const RESOURCES = [
  ["ServiceAccount", "openshell-sandbox"],
  ["Role", "openshell-sandbox"],
  ["RoleBinding", "openshell-sandbox"],
  ["NetworkPolicy", "openshell-sandbox-egress"],
] as const;

describe("the OpenShell Sandbox Driver, normal profile", () => {
  const id = newNamespaceId();
  const name = currentManagedName(id);
  let driver: ReturnType<typeof bundledComputeDriver>;

  it("applies the declared resources with markers and the namespace labels, and ensures the Workspace (bearer token)", async () => {
    const tokenFile = join(inject("env").runDir, `openshell-token-${id}`);
    await writeFile(tokenFile, "s3cret-token\n");
    const base = profileConfig({}, gw.endpoint);
    if (base.openshell === null) throw new Error("no openshell");
    const config = { ...base, openshell: { ...base.openshell, tokenFile } };
    gateway = createOpenShellGateway(config.openshell);
    driver = bundledComputeDriver(client, config, null, [
      openshellHook(client, gateway, config, null),
    ]);

    let result = await driver.ensureNamespace(passInput(id));
    for (let i = 0; i < 20 && result.outcome === "pending"; i++) {
      await new Promise((r) => setTimeout(r, 250));
      result = await driver.ensureNamespace(passInput(id));
    }
    expect(result).toMatchObject({ outcome: "ready", namespaceName: name });
    for (const [kind, objectName] of RESOURCES) {
      const live = await client.get<HasMetadata>(kind, { name: objectName, namespace: name });
      expect(live.metadata?.labels).toMatchObject({
        "app.kubernetes.io/managed-by": "openclaw-enterprise",
        "openclaw.dev/namespace": id,
      });
      expect(live.metadata?.annotations).toMatchObject({ "openclaw.dev/namespace-id": id });
    }
    const ns = await client.get<K8sNamespace>("Namespace", { name });
    expect(ns.metadata?.labels?.["openshell.nvidia.com/workspace-mode"]).toBe("operator");
    expect(gw.workspaces.get(name)?.phase).toBe("WORKSPACE_PHASE_ACTIVE");

    const writes = client.counter.writes();
    expect((await driver.ensureNamespace(passInput(id))).outcome).toBe("ready");
    expect(client.counter.writes()).toBe(writes);
  });

  it("a changed owned resource is converged back", async () => {
    const ref = { name: "openshell-sandbox", namespace: name };
    await client.patch("Role", ref, [{ op: "replace", path: "/rules/0/verbs", value: ["get"] }], {
      type: "json",
    });
    expect((await driver.ensureNamespace(passInput(id))).outcome).toBe("ready");
    const role = await client.get<HasMetadata & { rules: { verbs: string[] }[] }>("Role", ref);
    expect(role.rules[0]?.verbs).toEqual(["get", "list"]);
  });

  it("cleanup deletes the Workspace, then the declared resources, then the namespace", async () => {
    const first = await driver.deleteNamespace(passInput(id));
    expect(first.outcome).not.toBe("failed");
    expect(gw.workspaces.has(name)).toBe(false);
    expect(gw.calls).toContain("DeleteWorkspace");
    for (const [kind, objectName] of RESOURCES) {
      const live = await client.find<HasMetadata>(kind, { name: objectName, namespace: name });
      expect(live === undefined || live.metadata?.deletionTimestamp !== undefined).toBe(true);
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
