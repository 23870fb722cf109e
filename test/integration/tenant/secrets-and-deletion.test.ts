import { describe, expect, it } from "vitest";
import { LABELS } from "../../../src/domain/index.js";
import { secretObjectName } from "../../../src/domain/tenant/resources.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { admin, workerDriver } from "../compute/fixtures.js";
import { call, createTenant, readyExternal, revokeApiRole, tenantApiForFile } from "./fixtures.js";

const api = await tenantApiForFile();

const VALUE = `s3cr3t-${uniqueName("value")}`;

/** A principal bound (all resource permissions) to one Namespace only; returns its API key. */
async function principalOf(namespaceId: string): Promise<string> {
  const who = await call(api, "POST", "/principals", {
    body: { kind: "user", name: uniqueName("tenant-user") },
  });
  const principalId = (who.body.data as { id: string }).id;
  const actions = ["create", "read", "update", "delete"] as const;
  const kinds = ["configuration", "secret", "service_account", "namespace"] as const;
  const role = await call(api, "POST", "/roles", {
    body: {
      name: uniqueName("tenant-role"),
      permissions: kinds.flatMap((kind) =>
        actions
          .filter((a) => kind !== "namespace" || a !== "create")
          .map((action) => ({ action, kind })),
      ),
    },
  });
  const roleId = (role.body.data as { id: string }).id;
  const bound = await call(api, "POST", "/bindings", {
    body: { principalId, roleId, namespaceId },
  });
  expect(bound.status).toBe(201);
  const key = await call(api, "POST", `/principals/${principalId}/api-keys`, { body: {} });
  return (key.body.data as { key: string }).key;
}

describe("Secrets", () => {
  it("lands in the bound namespace; the value never appears in a response, log line, audit record or error", async () => {
    const { id, ns: selected } = await readyExternal(api);
    const created = await call(api, "POST", `/namespaces/${id}/secrets`, {
      body: { name: "provider-key", value: VALUE },
    });
    expect(created.status).toBe(201);
    const secId = (created.body.data as { id: string }).id;
    const obj = await admin.get("Secret", {
      name: secretObjectName(secId),
      namespace: selected,
    });
    expect(Buffer.from(obj.data?.value ?? "", "base64").toString("utf8")).toBe(VALUE);
    expect(obj.metadata.labels?.[LABELS.namespace]).toBe(id);

    const texts = [created.text];
    texts.push((await call(api, "GET", `/namespaces/${id}/secrets`)).text);
    texts.push((await call(api, "GET", `/namespaces/${id}/secrets/${secId}`)).text);
    const updated = await call(api, "PATCH", `/namespaces/${id}/secrets/${secId}`, {
      body: { value: `${VALUE}-2` },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ version: 2 });
    texts.push(updated.text);
    // Errors: a duplicate name, an invalid body, and a 503 without the API RoleBinding.
    texts.push(
      (
        await call(api, "POST", `/namespaces/${id}/secrets`, {
          body: { name: "provider-key", value: VALUE },
        })
      ).text,
    );
    texts.push(
      (
        await call(api, "POST", `/namespaces/${id}/secrets`, {
          body: { name: "", value: VALUE, x: VALUE },
        })
      ).text,
    );
    await revokeApiRole(selected);
    for (const [method, path, body] of [
      ["POST", `/namespaces/${id}/secrets`, { name: "other", value: VALUE }],
      ["GET", `/namespaces/${id}/secrets`, undefined],
      ["GET", `/namespaces/${id}/secrets/${secId}`, undefined],
      ["PATCH", `/namespaces/${id}/secrets/${secId}`, { value: VALUE }],
      ["DELETE", `/namespaces/${id}/secrets/${secId}`, undefined],
    ] as const) {
      const res = await call(api, method, path, body === undefined ? {} : { body });
      expect([res.status, res.body.error?.code]).toEqual([503, "KUBERNETES_PERMISSION_MISSING"]);
      expect(res.body.error?.message).toContain(`Kubernetes namespace ${selected}`);
      texts.push(res.text);
    }
    await bindTenantRole(selected, "occ-api");
    expect((await call(api, "GET", `/namespaces/${id}/secrets/${secId}`)).status).toBe(200);

    for (const text of [...texts, ...api.logs]) expect(text).not.toContain(VALUE);
    const audit = await api.db.query<{ row: string }>(
      "SELECT row_to_json(a)::text AS row FROM audit_events a",
    );
    expect(audit.rows.length).toBeGreaterThan(0);
    for (const r of audit.rows) expect(r.row).not.toContain(VALUE);
  });

  it("requires a ready Namespace: 409 NAMESPACE_NOT_READY while a managed one provisions", async () => {
    const id = await createTenant(api, uniqueName("mgd"));
    const res = await call(api, "POST", `/namespaces/${id}/secrets`, {
      body: { name: "k", value: VALUE },
    });
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe("NAMESPACE_NOT_READY");
  });
});

describe("tenant isolation", () => {
  it("a principal bound only to Namespace A gets 403/404 on every route of Namespace B", async () => {
    const a = await readyExternal(api);
    const b = await readyExternal(api);
    const cfg = await call(api, "POST", `/namespaces/${b.id}/configurations`, {
      body: { kind: "agent", values: {} },
    });
    const sec = await call(api, "POST", `/namespaces/${b.id}/secrets`, {
      body: { name: "k", value: VALUE },
    });
    const sa = await call(api, "POST", `/namespaces/${b.id}/service-accounts`, {
      body: { name: "bot" },
    });
    const ids = [cfg, sec, sa].map((r) => (r.body.data as { id: string }).id);
    const key = await principalOf(a.id);
    expect((await call(api, "GET", `/namespaces/${a.id}/configurations`, { key })).status).toBe(
      200,
    );

    const routes = [
      ["configurations", ids[0], { kind: "agent", values: {} }, { values: {} }],
      ["secrets", ids[1], { name: "x", value: VALUE }, { value: VALUE }],
      ["service-accounts", ids[2], { name: "x" }, undefined],
    ] as const;
    for (const [collection, itemId, createBody, patchBody] of routes) {
      const base = `/namespaces/${b.id}/${collection}`;
      const replies = [
        await call(api, "POST", base, { key, body: createBody }),
        await call(api, "GET", base, { key }),
        await call(api, "GET", `${base}/${itemId}`, { key }),
        await call(api, "DELETE", `${base}/${itemId}`, { key }),
        ...(patchBody === undefined
          ? []
          : [await call(api, "PATCH", `${base}/${itemId}`, { key, body: patchBody })]),
      ];
      for (const r of replies) expect([403, 404]).toContain(r.status);
    }
    const left = await api.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM configurations WHERE namespace_id = $1)
            + (SELECT count(*) FROM secrets WHERE namespace_id = $1)
            + (SELECT count(*) FROM service_accounts WHERE namespace_id = $1) AS n`,
      [b.id],
    );
    expect(Number(left.rows[0]?.n)).toBe(3);
  });
});

describe("Namespace deletion", () => {
  it("409 naming the remaining Configuration; after it is deleted 202, and the operator's own objects stay", async () => {
    const { id, ns: selected } = await readyExternal(api);
    const ownCm = await admin.create("ConfigMap", {
      metadata: { name: "operator-settings", namespace: selected },
      data: { a: "b" },
    });
    const ownSecret = await admin.create("Secret", {
      metadata: { name: "operator-token", namespace: selected },
      data: { t: Buffer.from("x").toString("base64") },
    });
    const cfg = await call(api, "POST", `/namespaces/${id}/configurations`, {
      body: { kind: "agent", values: { a: 1 } },
    });
    const cfgId = (cfg.body.data as { id: string }).id;
    const refused = await call(api, "DELETE", `/namespaces/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe("NAMESPACE_NOT_EMPTY");
    expect(refused.body.error?.message).toContain(cfgId);

    const sa = await call(api, "POST", `/namespaces/${id}/service-accounts`, {
      body: { name: "bot" },
    });
    const saId = (sa.body.data as { id: string }).id;
    expect((await call(api, "DELETE", `/namespaces/${id}/configurations/${cfgId}`)).status).toBe(
      204,
    );
    const stillSa = await call(api, "DELETE", `/namespaces/${id}`);
    expect(stillSa.status).toBe(409);
    expect(stillSa.body.error?.message).toContain(saId);
    expect((await call(api, "DELETE", `/namespaces/${id}/service-accounts/${saId}`)).status).toBe(
      204,
    );

    const accepted = await call(api, "DELETE", `/namespaces/${id}`);
    expect(accepted.status).toBe(202);
    const { driver, client } = workerDriver();
    try {
      await eventually("teardown", async () => {
        const r = await driver.deleteNamespace({
          namespaceId: id,
          placement: { mode: "external", existingNamespace: selected },
          boundUid: (await admin.get("Namespace", { name: selected })).metadata.uid ?? null,
        });
        return r.outcome === "deleted";
      });
    } finally {
      client.close();
    }
    const cm = await admin.get("ConfigMap", {
      name: "operator-settings",
      namespace: selected,
    });
    const secret = await admin.get("Secret", { name: "operator-token", namespace: selected });
    expect(cm.metadata.uid).toBe(ownCm.metadata.uid);
    expect(cm.data).toEqual({ a: "b" });
    expect(secret.metadata.uid).toBe(ownSecret.metadata.uid);
  });
});
