import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  currentManagedName,
  LABELS,
  MARKER_VALUES,
  type NamespaceId,
} from "../../../src/domain/index.js";
import {
  configMapName,
  CONFIGURATION_DATA_KEY,
  RESOURCE_LABELS,
} from "../../../src/domain/tenant/resources.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { admin, prepareExternal, RESTRICTED } from "../compute/fixtures.js";
import {
  call,
  createTenant,
  provision,
  readyExternal,
  readyManaged,
  revokeApiRole,
  tenantApiForFile,
} from "./fixtures.js";

interface ConfigurationView {
  id: string;
  generation: number;
  values: Record<string, unknown>;
}

// With the API's claimant index, as `occ api` runs: every read below goes through it.
const api = await tenantApiForFile({ claimantIndex: true });

const cfgPath = (ns: string, id?: string) =>
  `/namespaces/${ns}/configurations${id === undefined ? "" : `/${id}`}`;
const body = { kind: "agent", values: { model: "m-1", tools: ["search"] } };

async function rowCount(ns: string): Promise<number> {
  const r = await api.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM configurations WHERE namespace_id = $1",
    [ns],
  );
  return r.rows[0]?.n ?? -1;
}
const configMaps = (namespace: string) => admin.list("ConfigMap", { namespace });
const ownConfigMaps = async (namespace: string, tenant: string) =>
  (await configMaps(namespace)).filter((c) => c.metadata.labels?.[LABELS.namespace] === tenant);

describe("placement of Configurations", () => {
  it("external: 409 NAMESPACE_NOT_READY while provisioning, then 201 in the selected namespace (never an oce- one)", async () => {
    const prepared = await prepareExternal();
    const selected = prepared.metadata?.name ?? "";
    const id = await createTenant(api, uniqueName("ext"), selected);
    const early = await call(api, "POST", cfgPath(id), { body });
    expect(early.status).toBe(409);
    expect(early.body.error?.code).toBe("NAMESPACE_NOT_READY");
    expect(await rowCount(id)).toBe(0);

    await bindTenantRole(selected, "occ-worker");
    await bindTenantRole(selected, "occ-api");
    expect(await provision(api, id)).toBe("ready");
    const created = await call(api, "POST", cfgPath(id), { body });
    expect(created.status).toBe(201);
    const cfg = created.body.data as ConfigurationView;
    expect(cfg).toMatchObject({ generation: 1, values: body.values });

    const cm = await admin.get("ConfigMap", {
      name: configMapName(cfg.id),
      namespace: selected,
    });
    expect(cm.metadata.labels).toMatchObject({
      [LABELS.managedBy]: MARKER_VALUES.managedBy,
      [LABELS.namespace]: id,
      [RESOURCE_LABELS.configuration]: cfg.id,
      [RESOURCE_LABELS.generation]: "1",
    });
    expect(JSON.parse(cm.data?.[CONFIGURATION_DATA_KEY] ?? "null")).toEqual(body.values);
    expect(await admin.find("Namespace", { name: currentManagedName(id) })).toBeUndefined();

    const updated = await call(api, "PATCH", cfgPath(id, cfg.id), {
      body: { values: { model: "m-2" } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ generation: 2, values: { model: "m-2" } });
    const after = await admin.get("ConfigMap", {
      name: configMapName(cfg.id),
      namespace: selected,
    });
    expect(after.metadata.labels?.[RESOURCE_LABELS.generation]).toBe("2");
    const listed = await call(api, "GET", cfgPath(id));
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: cfg.id, generation: 2 })]);
  });

  it("managed while provisioning: 503 until the namespace and the API RoleBinding exist (never 500), then 201 in oce-…", async () => {
    const id = await createTenant(api, uniqueName("mgd"));
    const name = currentManagedName(id);
    const before = await call(api, "POST", cfgPath(id), { body });
    expect(before.status).toBe(503);
    expect(before.body.error?.code).toBe("KUBERNETES_NAMESPACE_MISSING");

    expect(await provision(api, id)).toBe("pending"); // no worker RoleBinding: created, pending
    await eventually(
      "the managed namespace",
      async () => (await admin.find("Namespace", { name })) !== undefined,
    );
    const noBinding = await call(api, "POST", cfgPath(id), { body });
    expect([noBinding.status, noBinding.body.error?.code]).toEqual([
      503,
      "KUBERNETES_PERMISSION_MISSING",
    ]);
    expect(noBinding.body.error?.message).toContain(name);
    expect(noBinding.body.error?.message).toContain("openclaw-enterprise-tenant-api");

    await bindTenantRole(name, "occ-api");
    const created = await call(api, "POST", cfgPath(id), { body });
    expect(created.status).toBe(201);
    const cfg = created.body.data as ConfigurationView;
    expect(
      await admin.find("ConfigMap", { name: configMapName(cfg.id), namespace: name }),
    ).toBeDefined();
    expect(await rowCount(id)).toBe(1);
  });
});

describe("the API RoleBinding", () => {
  it("missing → 503 KUBERNETES_PERMISSION_MISSING (the namespace and the fix) for every Configuration operation; granted again → works without restart", async () => {
    const { id, ns: selected } = await readyExternal(api);
    const created = await call(api, "POST", cfgPath(id), { body });
    expect(created.status).toBe(201);
    const cfgId = (created.body.data as ConfigurationView).id;

    await revokeApiRole(selected);
    const replies = [
      await call(api, "POST", cfgPath(id), { body }),
      await call(api, "GET", cfgPath(id)),
      await call(api, "GET", cfgPath(id, cfgId)),
      await call(api, "PATCH", cfgPath(id, cfgId), { body: { values: {} } }),
      await call(api, "DELETE", cfgPath(id, cfgId)),
    ];
    expect(replies.map((r) => [r.status, r.body.error?.code])).toEqual(
      replies.map(() => [503, "KUBERNETES_PERMISSION_MISSING"]),
    );
    for (const r of replies) {
      expect(r.body.error?.message).toContain(`Kubernetes namespace ${selected}`);
      expect(r.body.error?.message).toContain("grant the API RoleBinding");
    }
    expect(await rowCount(id)).toBe(1);

    await bindTenantRole(selected, "occ-api");
    expect((await call(api, "GET", cfgPath(id, cfgId))).status).toBe(200);
    expect((await call(api, "DELETE", cfgPath(id, cfgId))).status).toBe(204);
    expect(await rowCount(id)).toBe(0);
    expect(await ownConfigMaps(selected, id)).toEqual([]);
  });
});

describe("fail closed: 503 and no write anywhere", () => {
  async function refusedWithoutWrites(id: NamespaceId, namespaces: readonly string[]) {
    const res = await call(api, "POST", cfgPath(id), { body });
    expect(res.status).toBe(503);
    expect(res.body.error?.code).toBe("KUBERNETES_OWNERSHIP_CONFLICT");
    expect(await rowCount(id)).toBe(0);
    for (const ns of namespaces) expect(await ownConfigMaps(ns, id)).toEqual([]);
  }

  it("two namespaces carry the tenant's label", async () => {
    const { id, ns: selected } = await readyExternal(api);
    const rogue = uniqueName("rogue");
    await admin.create("Namespace", {
      metadata: { name: rogue, labels: { [LABELS.namespace]: id } },
    });
    await bindTenantRole(rogue, "occ-api");
    await refusedWithoutWrites(id, [selected, rogue]);
  });

  it.each([
    ["the claimant lacks the annotation", { annotations: { [ANNOTATIONS.namespaceId]: null } }],
    [
      "an external claimant whose Pod Security was relaxed",
      { labels: { [LABELS.podSecurityEnforce]: "baseline" } },
    ],
  ])("%s", async (_case, metadata) => {
    const { id, ns: selected } = await readyExternal(api);
    await admin.patch("Namespace", { name: selected }, { metadata }, { type: "merge" });
    await refusedWithoutWrites(id, [selected]);
    // A read gets the recorded namespace afresh: refused at once, whatever the index holds.
    expect((await call(api, "GET", cfgPath(id))).body.error?.code).toBe(
      "KUBERNETES_OWNERSHIP_CONFLICT",
    );
  });

  it("a managed claimant whose name is neither managed form", async () => {
    const id = await createTenant(api, uniqueName("mgd"));
    const rogue = uniqueName("oce-like");
    await admin.create("Namespace", {
      metadata: {
        name: rogue,
        labels: {
          [LABELS.namespace]: id,
          [LABELS.managedBy]: MARKER_VALUES.managedBy,
          ...RESTRICTED,
        },
        annotations: { [ANNOTATIONS.namespaceId]: id },
      },
    });
    await bindTenantRole(rogue, "occ-api");
    await refusedWithoutWrites(id, [rogue]);
  });

  it("an external claimant that is terminating", async () => {
    const { id, ns: selected } = await readyExternal(api);
    await admin.patch(
      "Namespace",
      { name: selected },
      { metadata: { finalizers: ["occ.test/hold"] } },
      { type: "merge" },
    );
    const ns = await admin.get("Namespace", { name: selected });
    await admin.delete("Namespace", { name: selected }, { uid: ns.metadata.uid ?? "" });
    await refusedWithoutWrites(id, [selected]);
    await admin.patch(
      "Namespace",
      { name: selected },
      { metadata: { finalizers: null } },
      { type: "merge" },
    );
  });
});

describe("a ConfigMap edited by hand", () => {
  it.each([
    ["generation", { metadata: { labels: { [RESOURCE_LABELS.generation]: "7" } } }],
    ["markers", { metadata: { annotations: { [ANNOTATIONS.namespaceId]: null } } }],
    ["content", { data: { [CONFIGURATION_DATA_KEY]: '{"model":"evil"}' } }],
  ])("(%s) → 503 on read, not repaired", async (_what, edit) => {
    const { id, ns: selected } = await readyExternal(api);
    const created = await call(api, "POST", cfgPath(id), { body });
    const cfgId = (created.body.data as ConfigurationView).id;
    const ref = { name: configMapName(cfgId), namespace: selected };
    const edited = await admin.patch("ConfigMap", ref, edit, { type: "merge" });

    const read = await call(api, "GET", cfgPath(id, cfgId));
    expect(read.status).toBe(503);
    expect(read.body.error?.code).toBe("KUBERNETES_OWNERSHIP_CONFLICT");
    expect((await call(api, "GET", cfgPath(id))).status).toBe(503);
    expect((await call(api, "PATCH", cfgPath(id, cfgId), { body: { values: {} } })).status).toBe(
      503,
    );
    const after = await admin.get("ConfigMap", ref);
    expect(after.metadata.resourceVersion).toBe(edited.metadata.resourceVersion);
  });
});

describe("compensation", () => {
  it("a create whose transaction rolls back leaves no ConfigMap behind", async () => {
    const { id, ns: selected } = await readyExternal(api);
    const res = await api.whileFailing(
      (sql) => sql.includes("INSERT INTO configurations"),
      () => call(api, "POST", cfgPath(id), { body }),
    );
    expect(res.status).toBe(503);
    expect(await rowCount(id)).toBe(0);
    expect(await ownConfigMaps(selected, id)).toEqual([]);
  });

  it("an update whose transaction rolls back puts the previous document back", async () => {
    const { id, ns: selected } = await readyExternal(api);
    const created = await call(api, "POST", cfgPath(id), { body });
    const cfgId = (created.body.data as ConfigurationView).id;
    const res = await api.whileFailing(
      (sql) => sql.includes("UPDATE configurations"),
      () => call(api, "PATCH", cfgPath(id, cfgId), { body: { values: { x: 1 } } }),
    );
    expect(res.status).toBe(503);
    const read = await call(api, "GET", cfgPath(id, cfgId));
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ generation: 1, values: body.values });
    const cm = await admin.get("ConfigMap", {
      name: configMapName(cfgId),
      namespace: selected,
    });
    expect(cm.metadata.labels?.[RESOURCE_LABELS.generation]).toBe("1");
  });
});

describe("reads through the API's claimant index (issue 39)", () => {
  const claimants = api.claimants;
  if (claimants === null) throw new Error("the file's API runs without its claimant index");
  /** The requests the drivers' client made during `fn`, by verb and code. */
  async function requestsDuring(fn: () => Promise<void>): Promise<Record<string, number>> {
    api.kubernetes.counter.reset();
    await fn();
    return { ...api.kubernetes.counter.snapshot() };
  }
  const lists = (requests: Record<string, number>) =>
    Object.keys(requests).filter((k) => k.startsWith("list "));
  async function readyConfiguration(): Promise<{ id: NamespaceId; ns: string; path: string }> {
    const { id, ns } = await readyManaged(api);
    const created = await call(api, "POST", cfgPath(id), { body });
    expect(created.status).toBe(201);
    return { id, ns, path: cfgPath(id, (created.body.data as ConfigurationView).id) };
  }
  const refusedWithin = (path: string, ms: number) =>
    eventually(
      `GET ${path} refused with KUBERNETES_OWNERSHIP_CONFLICT`,
      async () =>
        (await call(api, "GET", path)).body.error?.code === "KUBERNETES_OWNERSHIP_CONFLICT",
      ms,
    );

  it("a ready tenant's Configuration read lists no namespace once the index is synced: one get of the recorded namespace", async () => {
    const { path } = await readyConfiguration();
    expect(await claimants.waitForSync(30_000)).toBe(true);
    const requests = await requestsDuring(async () => {
      const read = await call(api, "GET", path);
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ generation: 1, values: body.values });
    });
    expect(lists(requests)).toEqual([]);
    expect(requests).toEqual({ "get 200": 2 }); // the namespace, the ConfigMap
  });

  it("a second namespace labelled with the tenant's ID: reads refused once the watch sees it (polled up to 30 s), as a write is", async () => {
    const { id, ns, path } = await readyConfiguration();
    const rogue = uniqueName("rogue");
    await admin.create("Namespace", {
      metadata: { name: rogue, labels: { [LABELS.namespace]: id } },
    });
    await refusedWithin(path, 30_000);
    const read = await call(api, "GET", path);
    const write = await call(api, "PATCH", path, { body: { values: { model: "m-2" } } });
    expect([read.status, read.body.error]).toEqual([503, write.body.error]);
    expect(read.body.error?.message).toContain("claim");
    expect((await call(api, "GET", cfgPath(id))).body.error?.code).toBe(
      "KUBERNETES_OWNERSHIP_CONFLICT",
    );
    expect(await ownConfigMaps(rogue, id)).toEqual([]);
    expect(await ownConfigMaps(ns, id)).toHaveLength(1);
  });

  it("the namespace deleted and recreated under the same name (another UID): reads refused", async () => {
    const { path, ns } = await readyConfiguration();
    const original = await admin.get("Namespace", { name: ns });
    await admin.delete("Namespace", { name: ns }, { uid: original.metadata.uid ?? "" });
    await eventually(
      "namespace gone",
      async () => (await admin.find("Namespace", { name: ns })) === undefined,
    );
    await admin.create("Namespace", {
      metadata: {
        name: ns,
        labels: original.metadata.labels,
        annotations: original.metadata.annotations,
      },
    });
    await refusedWithin(path, 30_000);
    expect((await call(api, "GET", path)).body.error?.message).toContain("metadata.uid changed");
  });

  it("with the index stopped, a read lists namespaces afresh: it still answers, and still refuses a second claimant", async () => {
    const { id, path } = await readyConfiguration();
    await claimants.stop();
    expect(claimants.claimants(id)).toBeNull();
    const requests = await requestsDuring(async () => {
      expect((await call(api, "GET", path)).status).toBe(200);
    });
    expect(lists(requests)).toEqual(["list 200"]);
    await admin.create("Namespace", {
      metadata: { name: uniqueName("rogue"), labels: { [LABELS.namespace]: id } },
    });
    const read = await call(api, "GET", path);
    expect([read.status, read.body.error?.code]).toEqual([503, "KUBERNETES_OWNERSHIP_CONFLICT"]);
  });
});
