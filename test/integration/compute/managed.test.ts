import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  currentManagedName,
  desiredOwnedObjects,
  dnsGrantCompletion,
  previousManagedName,
  type NamespaceId,
  type NetworkPolicy,
  type StringMap,
} from "../../../src/domain/index.js";
import { bindTenantRole } from "../../harness/rbac.js";
import {
  MEMBERSHIP,
  RESTRICTED,
  admin,
  grantChartRolesBeforeAll,
  managed,
  newTenant,
  permanentFailure,
  readNamespace,
  readyManaged,
  settings,
  workerDriver,
} from "./fixtures.js";
import { isKubeError } from "../../../src/drivers/kubernetes/client/index.js";

grantChartRolesBeforeAll();

/** A namespace under the tenant's previous managed name, with `labels` and its id annotation. */
function createPreviousName(id: NamespaceId, labels: StringMap) {
  return admin.create("Namespace", {
    metadata: {
      name: previousManagedName(id),
      labels: { ...labels, ...RESTRICTED },
      annotations: { [ANNOTATIONS.namespaceId]: id },
    },
  });
}

/** The `allow-dns` this release renders for tenant `id` in `name`. */
function desiredAllowDns(id: NamespaceId, name: string): NetworkPolicy {
  const found = desiredOwnedObjects(id, name, settings()).find(
    (o): o is NetworkPolicy => o.kind === "NetworkPolicy" && o.metadata.name === "allow-dns",
  );
  if (found === undefined) throw new Error("no desired allow-dns");
  return found;
}

const OWNED = [
  ["ResourceQuota", "openclaw-quota"],
  ["LimitRange", "openclaw-limits"],
  ["NetworkPolicy", "default-deny"],
  ["NetworkPolicy", "allow-dns"],
  ["NetworkPolicy", "allow-gateway-ingress"],
] as const;

describe("managed placement", () => {
  it("creates the namespace with every marker, pends on the missing RoleBinding, then reconciles every owned object", async () => {
    const id = newTenant();
    const name = currentManagedName(id);
    const { driver } = workerDriver();

    const first = await driver.ensureNamespace(managed(id));
    expect(first).toMatchObject({ outcome: "pending", code: "KUBERNETES_PERMISSION_PENDING" });
    if (first.outcome === "pending") expect(first.reason).toContain(name);

    const ns = await readNamespace(name);
    expect(ns?.metadata?.labels).toMatchObject({
      [LABELS.managedBy]: "openclaw-enterprise",
      [LABELS.namespace]: id,
      [LABELS.gatewayNamespace]: id,
      [LABELS.gatewayMembership]: MEMBERSHIP,
      ...RESTRICTED,
    });
    expect(ns?.metadata?.annotations?.[ANNOTATIONS.namespaceId]).toBe(id);
    expect(ns?.metadata?.annotations?.[ANNOTATIONS.lifecycle]).toBeUndefined();

    await bindTenantRole(name, "occ-worker");
    const second = await driver.ensureNamespace(managed(id));
    expect(second).toEqual({ outcome: "ready", uid: ns?.metadata?.uid, namespaceName: name });
    for (const [kind, objectName] of OWNED) {
      const obj = await admin.get(kind, {
        name: objectName,
        namespace: name,
      });
      expect(obj.metadata.labels, `${kind} ${objectName}`).toMatchObject({
        [LABELS.managedBy]: "openclaw-enterprise",
        [LABELS.namespace]: id,
      });
      expect(obj.metadata.annotations?.[ANNOTATIONS.namespaceId]).toBe(id);
    }
  });

  it("makes zero writes and at most five requests on a pass over an unchanged ready namespace", async () => {
    const { id, driver, client } = await readyManaged();

    client.counter.reset();
    expect((await driver.ensureNamespace(managed(id))).outcome).toBe("ready");
    expect(client.counter.writes()).toBe(0);
    expect(client.counter.total()).toBeLessThanOrEqual(5);
  });

  it("repairs an owned object that drifted, with one guarded write", async () => {
    const { id, name, driver, client } = await readyManaged();
    await admin.patch(
      "ResourceQuota",
      { name: "openclaw-quota", namespace: name },
      { spec: { hard: { pods: "999" } } },
      { type: "merge" },
    );
    client.counter.reset();
    expect((await driver.ensureNamespace(managed(id))).outcome).toBe("ready");
    expect(client.counter.writes()).toBe(1);
    const quota = await admin.get("ResourceQuota", {
      name: "openclaw-quota",
      namespace: name,
    });
    expect(quota.spec?.hard?.["pods"]).toBe("50");
  });

  it("completes the DNS grant of a tenant made ready before 5353: one guarded patch, then no write", async () => {
    const { id, name, driver, client } = await readyManaged();
    const ref = { name: "allow-dns", namespace: name };
    const desired = desiredAllowDns(id, name);
    const rule = desired.spec?.egress?.[0];
    if (rule === undefined) throw new Error("no DNS rule");
    // The tenant's allow-dns as the release before 5353 wrote it: DNS on 53 only.
    const current = await admin.get("NetworkPolicy", ref);
    await admin.delete("NetworkPolicy", ref, { uid: current.metadata.uid ?? "" });
    const old = await admin.create("NetworkPolicy", {
      ...desired,
      spec: {
        ...desired.spec,
        egress: [{ ...rule, ports: (rule.ports ?? []).filter((p) => p.port === 53) }],
      },
    });
    expect(old.spec?.egress?.[0]?.ports).toEqual([
      { protocol: "UDP", port: 53 },
      { protocol: "TCP", port: 53 },
    ]);

    client.counter.reset();
    expect((await driver.ensureNamespace(managed(id))).outcome).toBe("ready");
    expect(client.counter.writes()).toBe(1);
    expect(client.counter.snapshot()).toMatchObject({ "patch 200": 1 });
    const completed = await admin.get("NetworkPolicy", ref);
    expect(completed.metadata.uid).toBe(old.metadata.uid); // patched in place, not recreated
    // A JSON patch of the ports, not a whole-object apply: no field manager applied anything.
    const managers = (completed.metadata as { managedFields?: { operation?: string }[] })
      .managedFields;
    expect(managers?.length).toBeGreaterThan(0);
    expect(managers?.map((m) => m.operation)).not.toContain("Apply");
    expect(completed.spec?.podSelector).toEqual(old.spec?.podSelector);
    expect(completed.spec?.egress?.[0]?.to).toEqual(old.spec?.egress?.[0]?.to);
    expect(completed.spec?.egress?.[0]?.ports).toEqual([
      { protocol: "UDP", port: 53 },
      { protocol: "TCP", port: 53 },
      { protocol: "UDP", port: 5353 },
      { protocol: "TCP", port: 5353 },
    ]);

    client.counter.reset();
    expect((await driver.ensureNamespace(managed(id))).outcome).toBe("ready");
    expect(client.counter.writes()).toBe(0);
    // The grant is complete: nothing is left to patch.
    expect(dnsGrantCompletion(completed, desired)).toBeNull();
  });

  it("guards the DNS grant patch by resourceVersion (409) and by UID (refused)", async () => {
    const { id, name } = await readyManaged();
    const ref = { name: "allow-dns", namespace: name };
    const desired = desiredAllowDns(id, name);
    const live = await admin.get("NetworkPolicy", ref);
    const rule = live.spec?.egress?.[0];
    const old: NetworkPolicy = {
      ...live,
      spec: { ...live.spec, egress: [{ ...rule, ports: rule?.ports?.slice(0, 2) }] },
    };
    const stale = dnsGrantCompletion(
      { ...old, metadata: { ...old.metadata, resourceVersion: "1" } },
      desired,
    );
    const recreated = dnsGrantCompletion(
      { ...old, metadata: { ...old.metadata, uid: "00000000-0000-0000-0000-000000000000" } },
      desired,
    );
    if (stale === null || recreated === null) throw new Error("expected a completion");
    const refused = async (patch: unknown) =>
      admin.patch("NetworkPolicy", ref, patch, { type: "json" }).then(
        () => "written",
        (err: unknown) => (isKubeError(err) ? err.status : err),
      );
    expect(await refused(stale.patch)).toBe(409);
    expect(await refused(recreated.patch)).toBe(422);
    expect((await admin.get("NetworkPolicy", ref)).metadata.resourceVersion).toBe(
      live.metadata.resourceVersion,
    );
  });

  it("refuses a same-named namespace that OCC does not own, and leaves it unchanged", async () => {
    const id = newTenant();
    const name = currentManagedName(id);
    const before = await admin.create("Namespace", {
      metadata: { name, labels: { owner: "someone-else" } },
    });
    const { driver } = workerDriver();
    const result = await driver.ensureNamespace(managed(id));
    expect(result).toMatchObject(permanentFailure("KUBERNETES_OWNERSHIP_CONFLICT"));
    const after = await readNamespace(name);
    expect(after?.metadata?.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it("uses a namespace found under the previous name with exact markers and the manager label", async () => {
    const id = newTenant();
    const previous = previousManagedName(id);
    const created = await createPreviousName(id, {
      [LABELS.managedBy]: "openclaw-enterprise",
      [LABELS.namespace]: id,
    });
    await bindTenantRole(previous, "occ-worker");
    const { driver } = workerDriver();
    const result = await driver.ensureNamespace(managed(id));
    expect(result).toEqual({
      outcome: "ready",
      uid: created.metadata.uid,
      namespaceName: previous,
    });
    expect(await readNamespace(currentManagedName(id))).toBeUndefined();
  });

  it("refuses a previous-name namespace without the manager label", async () => {
    const id = newTenant();
    const previous = previousManagedName(id);
    const before = await createPreviousName(id, { [LABELS.namespace]: id });
    const { driver } = workerDriver();
    const result = await driver.ensureNamespace(managed(id));
    expect(result).toMatchObject({ outcome: "failed", code: "KUBERNETES_OWNERSHIP_CONFLICT" });
    if (result.outcome === "failed") expect(result.reason).toContain(LABELS.managedBy);
    expect((await readNamespace(previous))?.metadata?.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
    expect(await readNamespace(currentManagedName(id))).toBeUndefined();
  });
});
