import { describe, expect, it } from "vitest";
import { ANNOTATIONS, LABELS, type K8sNamespace } from "../../../src/domain/index.js";
import { startFaultProxy, type Fault } from "../../harness/fault-proxy.js";
import { bindTenantRole } from "../../harness/rbac.js";
import {
  MEMBERSHIP,
  admin,
  external,
  grantChartRolesBeforeAll,
  newTenant,
  passExternal,
  permanentFailure,
  prepareBoundExternal,
  prepareExternal,
  readNamespace,
  retryableFailure,
  workerDriver,
} from "./fixtures.js";

grantChartRolesBeforeAll();

const nameOf = (ns: K8sNamespace) => ns.metadata?.name ?? "";

/** A worker driver whose first PATCH of the namespace is preceded by `concurrent`. */
async function withConcurrentChange(
  concurrent: () => Promise<void>,
  run: (driver: ReturnType<typeof workerDriver>["driver"]) => Promise<void>,
): Promise<void> {
  let fired = false;
  const proxy = await startFaultProxy((req): Fault => {
    if (!fired && req.method === "PATCH" && req.path.startsWith("/api/v1/namespaces/")) {
      fired = true;
      return { action: "pass", before: concurrent };
    }
    return { action: "pass" };
  });
  try {
    await run(workerDriver(proxy.kubeConfig("occ-worker")).driver);
    expect(fired).toBe(true);
  } finally {
    await proxy.close();
  }
}

describe("external placement binding", () => {
  it("stays pending until the worker RoleBinding exists, then becomes ready without a restart", async () => {
    const ns = await prepareExternal();
    const name = nameOf(ns);
    const id = newTenant();
    const { driver } = workerDriver();

    const first = await driver.ensureNamespace(external(id, name));
    expect(first).toMatchObject({ outcome: "pending", code: "KUBERNETES_PERMISSION_PENDING" });
    if (first.outcome === "pending") expect(first.reason).toContain(name);
    expect((await readNamespace(name))?.metadata?.resourceVersion).toBe(
      ns.metadata?.resourceVersion,
    );

    await bindTenantRole(name, "occ-worker");
    const second = await driver.ensureNamespace(external(id, name));
    expect(second).toEqual({ outcome: "ready", uid: ns.metadata?.uid, namespaceName: name });
  });

  it("binds with one guarded patch and preserves the operator's manager label and metadata", async () => {
    const { ns, name } = await prepareBoundExternal();
    const id = newTenant();
    const { driver, client } = workerDriver();

    expect((await driver.ensureNamespace(external(id, name))).outcome).toBe("ready");
    const namespacePatches = client.counter.snapshot()["patch 200"] ?? 0;
    expect(namespacePatches).toBe(1);

    const after = await readNamespace(name);
    expect(after?.metadata?.labels).toEqual({
      ...ns.metadata?.labels,
      [LABELS.namespace]: id,
      [LABELS.gatewayNamespace]: id,
      [LABELS.gatewayMembership]: MEMBERSHIP,
    });
    expect(after?.metadata?.labels?.[LABELS.managedBy]).toBe("Helm");
    expect(after?.metadata?.annotations).toEqual({
      ...ns.metadata?.annotations,
      [ANNOTATIONS.namespaceId]: id,
    });

    client.counter.reset();
    expect((await driver.ensureNamespace(external(id, name))).outcome).toBe("ready");
    expect(client.counter.writes()).toBe(0);
    expect(client.counter.total()).toBeLessThanOrEqual(5);
  });

  it("a concurrent unrelated change makes the bind 409 and the pass retryable", async () => {
    const { name } = await prepareBoundExternal();
    const id = newTenant();
    await withConcurrentChange(
      async () => {
        await admin.patch(
          "Namespace",
          { name },
          { metadata: { labels: { cost: "42" } } },
          { type: "merge" },
        );
      },
      async (driver) => {
        const result = await driver.ensureNamespace(external(id, name));
        expect(result).toMatchObject(retryableFailure("KUBERNETES_CONFLICT"));
      },
    );
    const after = await readNamespace(name);
    expect(after?.metadata?.labels?.cost).toBe("42");
    expect(after?.metadata?.labels?.[LABELS.namespace]).toBeUndefined();
    // The next pass binds.
    expect((await passExternal(id, name)).outcome).toBe("ready");
  });

  it("a concurrent bind by the same tenant counts as success", async () => {
    const { ns, name } = await prepareBoundExternal();
    const id = newTenant();
    await withConcurrentChange(
      async () => {
        expect((await passExternal(id, name)).outcome).toBe("ready");
      },
      async (driver) => {
        const result = await driver.ensureNamespace(external(id, name));
        expect(result).toEqual({ outcome: "ready", uid: ns.metadata?.uid, namespaceName: name });
      },
    );
  });

  it("a concurrent bind by another tenant: exactly one wins, the other fails with an ownership conflict", async () => {
    const { name } = await prepareBoundExternal();
    const [a, b] = [newTenant(), newTenant()];
    await withConcurrentChange(
      async () => {
        expect((await passExternal(b, name)).outcome).toBe("ready");
      },
      async (driver) => {
        const result = await driver.ensureNamespace(external(a, name));
        expect(result).toMatchObject(permanentFailure("KUBERNETES_OWNERSHIP_CONFLICT"));
        if (result.outcome === "failed") expect(result.reason).not.toContain(b);
      },
    );
    const after = await readNamespace(name);
    expect(after?.metadata?.labels?.[LABELS.namespace]).toBe(b);
    expect(after?.metadata?.annotations?.[ANNOTATIONS.namespaceId]).toBe(b);
  });

  it("two tenants adopting the same namespace at once: one bound, markers consistent (R2)", async () => {
    for (let round = 0; round < 5; round++) {
      const { name } = await prepareBoundExternal();
      const tenants = [newTenant(), newTenant()] as const;
      const results = await Promise.all(tenants.map((t) => passExternal(t, name)));
      const winners = results.filter((r) => r.outcome === "ready");
      const losers = results.filter((r) => r.outcome === "failed");
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      expect(losers[0]).toMatchObject({ code: "KUBERNETES_OWNERSHIP_CONFLICT" });
      const winner = results[0]?.outcome === "ready" ? tenants[0] : tenants[1];
      const after = await readNamespace(name);
      expect(after?.metadata?.labels?.[LABELS.namespace]).toBe(winner);
      expect(after?.metadata?.annotations?.[ANNOTATIONS.namespaceId]).toBe(winner);
      expect(after?.metadata?.labels?.[LABELS.gatewayNamespace]).toBe(winner);
    }
  });
});
