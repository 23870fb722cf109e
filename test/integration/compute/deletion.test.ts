import { describe, expect, it } from "vitest";
import { ANNOTATIONS, LABELS, currentManagedName } from "../../../src/domain/index.js";
import { startFaultProxy } from "../../harness/fault-proxy.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import {
  RESTRICTED,
  admin,
  external,
  grantChartRolesBeforeAll,
  managed,
  newTenant,
  passExternal,
  permanentFailure,
  prepareBoundExternal,
  prepareExternal,
  readNamespace,
  readyManaged,
  workerDriver,
} from "./fixtures.js";

grantChartRolesBeforeAll();

/** An external namespace bound to a fresh tenant, with the operator's own objects inside. */
async function readyExternal() {
  const { ns, name } = await prepareBoundExternal();
  const id = newTenant();
  await admin.create("Secret", {
    metadata: { name: "operator-secret", namespace: name },
    stringData: { token: "x" },
  });
  await admin.create("ConfigMap", {
    metadata: { name: "operator-config", namespace: name },
    data: { a: "b" },
  });
  expect((await passExternal(id, name)).outcome).toBe("ready");
  return { name, id, uid: ns.metadata?.uid ?? "" };
}

describe("deleteNamespace", () => {
  it("external: removes only the owned objects, default-deny last, each with its UID precondition", async () => {
    const { name, id } = await readyExternal();
    const owned = await admin.list("NetworkPolicy", { namespace: name });
    const uidByName = new Map(owned.map((p) => [p.metadata.name, p.metadata.uid]));

    const proxy = await startFaultProxy(() => ({ action: "pass" }));
    try {
      const { driver } = workerDriver(proxy.kubeConfig("occ-worker"));
      expect(await driver.deleteNamespace(external(id, name))).toEqual({ outcome: "deleted" });
      const deletes = proxy.seen.filter((r) => r.method === "DELETE");
      expect(deletes.map((r) => r.path.split("/").pop())).toEqual([
        "openclaw-quota",
        "openclaw-limits",
        "allow-dns",
        "allow-gateway-ingress",
        "default-deny",
      ]);
      for (const d of deletes) {
        const body = JSON.parse(d.body) as { preconditions?: { uid?: string } };
        expect(body.preconditions?.uid).toMatch(/^[0-9a-f-]{36}$/);
      }
      const last = JSON.parse(deletes[4]?.body ?? "{}") as { preconditions: { uid: string } };
      expect(last.preconditions.uid).toBe(uidByName.get("default-deny"));
    } finally {
      await proxy.close();
    }

    const after = await readNamespace(name);
    expect(after?.metadata?.labels?.[LABELS.namespace]).toBe(id);
    expect(after?.metadata?.annotations?.[ANNOTATIONS.namespaceId]).toBe(id);
    expect(after?.metadata?.labels?.[LABELS.managedBy]).toBe("Helm");
    expect(
      await admin.find("RoleBinding", {
        name: "openclaw-enterprise-tenant-worker",
        namespace: name,
      }),
    ).toBeDefined();
    expect(await admin.find("Secret", { name: "operator-secret", namespace: name })).toBeDefined();
    expect(
      await admin.find("ConfigMap", { name: "operator-config", namespace: name }),
    ).toBeDefined();
    expect(await admin.list("NetworkPolicy", { namespace: name })).toEqual([]);
    expect(
      await admin.find("ResourceQuota", { name: "openclaw-quota", namespace: name }),
    ).toBeUndefined();
  });

  it("external: leaves an operator object that merely shares an owned name", async () => {
    const { name, id } = await readyExternal();
    const ref = { name: "openclaw-quota", namespace: name };
    const quota = await admin.get("ResourceQuota", ref);
    // The operator strips our markers: the quota is theirs now and must survive.
    await admin.patch(
      "ResourceQuota",
      ref,
      { metadata: { labels: { [LABELS.namespace]: null } } },
      { type: "merge" },
    );
    expect((await workerDriver().driver.deleteNamespace(external(id, name))).outcome).toBe(
      "deleted",
    );
    expect((await admin.find("ResourceQuota", ref))?.metadata.uid).toBe(quota.metadata.uid);
  });

  it("a never-bound external selection is deleted without any write", async () => {
    const ns = await prepareExternal();
    const name = ns.metadata?.name ?? "";
    const { driver, client } = workerDriver();
    expect(await driver.deleteNamespace(external(newTenant(), name))).toEqual({
      outcome: "deleted",
    });
    expect(client.counter.writes()).toBe(0);
    expect((await readNamespace(name))?.metadata?.resourceVersion).toBe(
      ns.metadata?.resourceVersion,
    );
  });

  it.each([
    ["only the label", true, false],
    ["only the annotation", false, true],
  ] as const)(
    "partial markers (%s) fail permanently",
    async (_label, withLabel, withAnnotation) => {
      const id = newTenant();
      const ns = await prepareExternal({
        ...(withLabel ? { labels: { [LABELS.namespace]: id } } : {}),
        ...(withAnnotation ? { annotations: { [ANNOTATIONS.namespaceId]: id } } : {}),
      });
      const name = ns.metadata?.name ?? "";
      const { driver, client } = workerDriver();
      expect(await driver.deleteNamespace(external(id, name))).toMatchObject(
        permanentFailure("KUBERNETES_OWNERSHIP_CONFLICT"),
      );
      expect(client.counter.writes()).toBe(0);
      expect((await readNamespace(name))?.metadata?.resourceVersion).toBe(
        ns.metadata?.resourceVersion,
      );
    },
  );

  it("an already-missing namespace counts as deleted, in both modes", async () => {
    const { driver } = workerDriver();
    expect(await driver.deleteNamespace(external(newTenant(), uniqueName("gone")))).toEqual({
      outcome: "deleted",
    });
    expect(await driver.deleteNamespace(managed(newTenant()))).toEqual({ outcome: "deleted" });
  });

  it("managed: pending until the namespace controller finishes, then deleted", async () => {
    const { id, name, driver, uid } = await readyManaged();

    const first = await driver.deleteNamespace(managed(id, uid));
    expect(first).toMatchObject({ outcome: "pending", code: "KUBERNETES_NAMESPACE_PENDING" });
    await eventually("managed namespace deletion to finish", async () => {
      const r = await driver.deleteNamespace(managed(id, uid));
      expect(r.outcome === "deleted" || r.outcome === "pending").toBe(true);
      return r.outcome === "deleted";
    });
    expect(await readNamespace(name)).toBeUndefined();
  });
});

describe("UID pinning", () => {
  it("refuses a managed namespace deleted and recreated under the same name", async () => {
    const { id, name, driver, uid } = await readyManaged();
    const original = await readNamespace(name);

    await admin.delete("Namespace", { name }, { uid });
    await eventually("namespace gone", async () => (await readNamespace(name)) === undefined);
    // Restored by someone else, markers and all: same name, new UID.
    await admin.create("Namespace", {
      metadata: {
        name,
        labels: original?.metadata?.labels,
        annotations: original?.metadata?.annotations,
      },
    });
    const result = await driver.ensureNamespace(managed(id, uid));
    expect(result).toMatchObject({ outcome: "failed", code: "KUBERNETES_NAMESPACE_REPLACED" });
    if (result.outcome === "failed") expect(result.reason).toContain("uid");
    expect(await driver.deleteNamespace(managed(id, uid))).toMatchObject({
      outcome: "failed",
      code: "KUBERNETES_NAMESPACE_REPLACED",
    });
    expect(await readNamespace(name)).toBeDefined();
  });

  it("refuses a bound managed namespace that disappeared instead of recreating it silently", async () => {
    const id = newTenant();
    const name = currentManagedName(id);
    const { driver, client } = workerDriver();
    const result = await driver.ensureNamespace(
      managed(id, "4b0b7e8e-0000-4000-8000-000000000000"),
    );
    expect(result).toMatchObject({ outcome: "failed", code: "KUBERNETES_NAMESPACE_MISSING" });
    expect(client.counter.writes()).toBe(0);
    expect(await readNamespace(name)).toBeUndefined();
  });

  it("refuses an external namespace deleted and recreated under the same name", async () => {
    const { name, id, uid } = await readyExternal();
    await admin.delete("Namespace", { name }, { uid });
    await eventually("namespace gone", async () => (await readNamespace(name)) === undefined);
    const recreated = await admin.create("Namespace", {
      metadata: {
        name,
        labels: { [LABELS.managedBy]: "Helm", ...RESTRICTED },
        annotations: { [ANNOTATIONS.lifecycle]: "external" },
      },
    });
    const { driver, client } = workerDriver();
    const result = await driver.ensureNamespace(external(id, name, uid));
    expect(result).toMatchObject({ outcome: "failed", code: "KUBERNETES_NAMESPACE_REPLACED" });
    expect(client.counter.writes()).toBe(0);
    expect((await readNamespace(name))?.metadata?.resourceVersion).toBe(
      recreated.metadata.resourceVersion,
    );
  });
});
