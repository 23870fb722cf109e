import { describe, expect, inject, it } from "vitest";
import { loadKubeConfig } from "../../../src/drivers/kubernetes/client/index.js";
import { bindTenantRole, revokeTenantRole } from "../../harness/rbac.js";
import {
  admin,
  external,
  grantChartRolesBeforeAll,
  managed,
  newTenant,
  prepareBoundExternal,
  workerDriver,
} from "./fixtures.js";

/**
 * lifecycle.md §1–2: a tenant RoleBinding is watched and "authorization revoked" is a state a
 * bound tenant can reach. Found by the R5 model (seed -324924573, path 20:0:0: a ready external
 * tenant whose worker RoleBinding the operator deleted stayed `ready`, since its passes were
 * served from the caches and wrote nothing). A bound pass now sees the revocation — pending on
 * permissions (the worker records it as `degraded`), nothing written — and is ready again once
 * the operator grants the role again. This Driver runs without watch caches, so its reads meet
 * the 403 too; the cached path (where the bug was) is proven through the worker process by
 * test/integration/e2e/namespaces.e2e.test.ts.
 */
grantChartRolesBeforeAll();

describe("a bound external namespace whose worker grant is revoked", () => {
  it("is pending on permissions with nothing written, and ready once granted again", async () => {
    const { name } = await prepareBoundExternal();
    const id = newTenant();
    const { driver, client } = workerDriver();
    try {
      const first = await driver.ensureNamespace(external(id, name));
      expect(first).toMatchObject({ outcome: "ready", namespaceName: name });
      const uid = first.outcome === "ready" ? first.uid : null;

      await revokeTenantRole(name, "occ-worker");
      const before = await admin.list("NetworkPolicy", { namespace: name });
      const revoked = await driver.ensureNamespace({ ...external(id, name, uid), bound: true });
      expect(revoked).toMatchObject({ outcome: "pending", code: "KUBERNETES_PERMISSION_PENDING" });
      if (revoked.outcome === "pending") expect(revoked.reason).toContain(name);
      const after = await admin.list("NetworkPolicy", { namespace: name });
      expect(after.map((p) => p.metadata.resourceVersion)).toEqual(
        before.map((p) => p.metadata.resourceVersion),
      );

      await bindTenantRole(name, "occ-worker");
      const again = await driver.ensureNamespace({ ...external(id, name, uid), bound: true });
      expect(again).toEqual({ outcome: "ready", uid, namespaceName: name });
    } finally {
      client.close();
    }
  });
});

describe("a bound namespace granted by another shape than a tenant RoleBinding", () => {
  it("is asked about once (one access review), then taken as granted: the next pass writes nothing", async () => {
    // The cluster administrator's identity: granted everywhere, by no RoleBinding in the namespace.
    const { driver, client } = workerDriver(loadKubeConfig(inject("env").kubeconfigs.admin));
    try {
      const id = newTenant();
      const first = await driver.ensureNamespace(managed(id));
      if (first.outcome !== "ready") throw new Error(`expected ready, got ${first.outcome}`);
      const bindings = await admin.list("RoleBinding", { namespace: first.namespaceName });
      expect(bindings.map((b) => b.roleRef?.name)).not.toContain(
        "openclaw-enterprise-tenant-worker",
      );
      const bound = { ...managed(id, first.uid), bound: true };

      client.counter.reset();
      expect(await driver.ensureNamespace(bound)).toEqual(first);
      // Its only write: the SelfSubjectAccessReview.
      expect(client.counter.writes()).toBe(1);

      client.counter.reset();
      expect(await driver.ensureNamespace(bound)).toEqual(first);
      expect(client.counter.writes()).toBe(0);
    } finally {
      client.close();
    }
  });
});
