/**
 * Reading and deleting Namespaces (control-plane.md §2, quality.md §4): authorization before
 * existence, tenant isolation, the filtered listing, and DELETE's lock, re-authorization,
 * emptiness check, idempotence and requeue of a permanently failed teardown.
 */
import { describe, expect, it } from "vitest";
import { NamespaceSchema } from "../../../src/contract/namespaces.js";
import { applyProvisioningOutcome } from "../../../src/store/namespace-outcomes.js";
import {
  apiForFile,
  call,
  createNamespace,
  counts,
  dataOf,
  errorOf,
  pageOf,
  principalWith,
  requestIdOf,
} from "../../harness/api-app.js";

const READ = { action: "read", kind: "namespace" } as const;
const DELETE = { action: "delete", kind: "namespace" } as const;
const MISSING = "ns_00000000-0000-4000-8000-000000000000";

/** Namespace IDs the fake content check reports as holding 2 Agents. */
const occupied = new Set<string>();
const fx = await apiForFile({
  contentChecks: [
    {
      singular: "Agent",
      plural: "Agents",
      count: (_q, id) => Promise.resolve(occupied.has(id) ? 2 : 0),
    },
  ],
});
const a = await createNamespace(fx, "tenant-a");
const b = await createNamespace(fx, "tenant-b");
const tenantA = await principalWith(fx, "tenant-a-operator", [READ, DELETE], a);

describe("GET /namespaces/{id}", () => {
  it("shows placement and the status reason", async () => {
    await applyProvisioningOutcome(fx.raw, a, {
      to: "provisioning",
      reason: { code: "KUBERNETES_PERMISSION_PENDING", message: "grant the worker RoleBinding" },
    });
    const r = await call(fx.app, "GET", `/namespaces/${a}`, { key: tenantA.key });
    const ns = dataOf(r, NamespaceSchema);
    expect(ns.statusReason).toMatchObject({
      code: "KUBERNETES_PERMISSION_PENDING",
      message: "grant the worker RoleBinding",
    });
    expect(Date.parse(ns.statusReason?.since ?? "")).not.toBeNaN();
    expect(ns.placement).toEqual({
      mode: "managed",
      kubernetesNamespace: expect.stringMatching(/^oce-/) as unknown,
      uid: null,
      observedUid: null,
    });
    expect(Date.parse(ns.lastReconciledAt ?? "")).not.toBeNaN();
  });

  it("authorizes before existence: another tenant's ID and a missing ID look the same", async () => {
    const other = await call(fx.app, "GET", `/namespaces/${b}`, { key: tenantA.key });
    const missing = await call(fx.app, "GET", `/namespaces/${MISSING}`, { key: tenantA.key });
    expect(other.status).toBe(403);
    expect(missing.status).toBe(403);
    expect(errorOf(other).error).toEqual(errorOf(missing).error);
    expect(other.text).not.toContain("tenant-b");
    // An Installation-wide reader learns existence, as it may.
    expect((await call(fx.app, "GET", `/namespaces/${MISSING}`, { key: fx.adminKey })).status).toBe(
      404,
    );
  });

  it("records the denial with the requested ID", async () => {
    const r = await call(fx.app, "GET", `/namespaces/${b}`, { key: tenantA.key });
    const rows = await fx.raw.query(
      "SELECT actor, action, resource_id, details FROM audit_events WHERE request_id = $1",
      [requestIdOf(r)],
    );
    expect(rows.rows).toEqual([
      {
        actor: tenantA.id,
        action: "namespaces.read",
        resource_id: b,
        details: { permission: "namespace:read", reason: "no_grant", namespaceId: b },
      },
    ]);
  });
});

describe("GET /namespaces", () => {
  it("lists only what the caller may read, and nothing about the rest", async () => {
    const r = await call(fx.app, "GET", "/namespaces", { key: tenantA.key });
    const page = pageOf(r, NamespaceSchema);
    expect(page.items.map((n) => n.id)).toEqual([a]);
    expect(r.text).not.toContain(b);
    expect(r.text).not.toContain("tenant-b");
  });

  it("is empty, not 403, for a principal without any grant", async () => {
    const nobody = await principalWith(fx, "list-nobody", []);
    const r = await call(fx.app, "GET", "/namespaces", { key: nobody.key });
    expect(pageOf(r, NamespaceSchema).items).toEqual([]);
  });

  it("pages with limit and an opaque cursor, oldest first", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/namespaces?limit=1${cursor === null ? "" : `&cursor=${cursor}`}`;
      const page = pageOf(await call(fx.app, "GET", url, { key: fx.adminKey }), NamespaceSchema);
      expect(page.items.length).toBeLessThanOrEqual(1);
      seen.push(...page.items.map((n) => n.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    const all = pageOf(
      await call(fx.app, "GET", "/namespaces", { key: fx.adminKey }),
      NamespaceSchema,
    );
    expect(seen).toEqual(all.items.map((n) => n.id));
    expect(seen).toEqual(expect.arrayContaining([a, b]));
  });

  it("honours a restriction on one Namespace", async () => {
    const reader = await principalWith(fx, "reader", [READ]);
    const before = pageOf(
      await call(fx.app, "GET", "/namespaces", { key: reader.key }),
      NamespaceSchema,
    );
    expect(before.items.map((n) => n.id)).toEqual(expect.arrayContaining([a, b]));
    const rst = await call(fx.app, "POST", "/restrictions", {
      key: fx.adminKey,
      body: { principalId: reader.id, namespaceId: b, action: "read" },
    });
    expect(rst.status).toBe(201);
    const after = pageOf(
      await call(fx.app, "GET", "/namespaces", { key: reader.key }),
      NamespaceSchema,
    );
    expect(after.items.map((n) => n.id)).toContain(a);
    expect(after.items.map((n) => n.id)).not.toContain(b);
    expect((await call(fx.app, "GET", `/namespaces/${b}`, { key: reader.key })).status).toBe(403);
  });
});

describe("DELETE /namespaces/{id}", () => {
  it("refuses another tenant's Namespace with 403 and leaves it untouched", async () => {
    const r = await call(fx.app, "DELETE", `/namespaces/${b}`, { key: tenantA.key });
    expect(r.status).toBe(403);
    const row = await fx.raw.query("SELECT status FROM namespaces WHERE id = $1", [b]);
    expect(row.rows).toEqual([{ status: "provisioning" }]);
    expect(
      (await call(fx.app, "DELETE", `/namespaces/${MISSING}`, { key: tenantA.key })).status,
    ).toBe(403);
  });

  it("re-authorizes under the row lock: a grant revoked meanwhile is honoured", async () => {
    const c = await createNamespace(fx, "revoked-meanwhile");
    const op = await principalWith(fx, "short-lived", [DELETE], c);
    fx.db.beforeStatement(
      (sql) => sql.includes("FOR UPDATE") && sql.includes("FROM namespaces"),
      async (tx) => {
        await tx.query("DELETE FROM bindings WHERE principal_id = $1", [op.id]);
      },
    );
    const r = await call(fx.app, "DELETE", `/namespaces/${c}`, { key: op.key });
    expect(r.status).toBe(403);
    const row = await fx.raw.query("SELECT status FROM namespaces WHERE id = $1", [c]);
    expect(row.rows).toEqual([{ status: "provisioning" }]);
    const denials = await fx.raw.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE request_id = $1 AND kind = 'authorization_denial'",
      [requestIdOf(r)],
    );
    expect(denials.rows).toEqual([{ n: 1 }]);
  });

  it("refuses a Namespace that still holds resources, naming them, and changes nothing", async () => {
    const c = await createNamespace(fx, "occupied");
    occupied.add(c);
    const before = await counts(fx.raw);
    const r = await call(fx.app, "DELETE", `/namespaces/${c}`, { key: fx.adminKey });
    expect(r.status).toBe(409);
    expect(errorOf(r).error).toEqual({
      code: "NAMESPACE_NOT_EMPTY",
      message: "The Namespace still holds 2 Agents; delete them first.",
    });
    expect(await counts(fx.raw)).toEqual(before);
    occupied.delete(c);
  });

  it("moves to deleting with a teardown item and an event; a second DELETE is a no-op 202", async () => {
    const before = await counts(fx.raw);
    const r = await call(fx.app, "DELETE", `/namespaces/${a}`, { key: tenantA.key });
    expect(r.status).toBe(202);
    const ns = dataOf(r, NamespaceSchema);
    expect(ns.status).toBe("deleting");
    expect(ns.statusReason).toBeNull();
    const work = await fx.raw.query(
      "SELECT kind, subject, actor, state FROM work_items WHERE idempotency_key = $1",
      [`namespace:${a}:deleted`],
    );
    expect(work.rows).toEqual([
      { kind: "namespace.teardown", subject: `namespace:${a}`, actor: tenantA.id, state: "queued" },
    ]);
    const mid = await counts(fx.raw);
    expect(mid).toEqual({
      ...before,
      work_items: before.work_items + 1,
      mutations: before.mutations + 1,
    });

    const again = await call(fx.app, "DELETE", `/namespaces/${a}`, { key: tenantA.key });
    expect(again.status).toBe(202);
    expect(dataOf(again, NamespaceSchema).status).toBe("deleting");
    expect(await counts(fx.raw)).toEqual(mid);
  });

  it("requeues a teardown that failed permanently, with the caller as its actor", async () => {
    await fx.raw.query(
      `UPDATE work_items SET state = 'failed_permanent', attempt_count = 5, finished_at = now()
       WHERE idempotency_key = $1`,
      [`namespace:${a}:deleted`],
    );
    const r = await call(fx.app, "DELETE", `/namespaces/${a}`, { key: fx.adminKey });
    expect(r.status).toBe(202);
    const work = await fx.raw.query(
      "SELECT state, actor, attempt_count FROM work_items WHERE idempotency_key = $1",
      [`namespace:${a}:deleted`],
    );
    expect(work.rows).toEqual([{ state: "queued", actor: fx.adminId, attempt_count: 0 }]);
    const events = await fx.raw.query(
      "SELECT details->>'requeued' AS requeued FROM audit_events WHERE request_id = $1",
      [requestIdOf(r)],
    );
    expect(events.rows).toEqual([{ requeued: "true" }]);
  });

  it("answers 404 once the Namespace is tombstoned", async () => {
    await fx.raw.query("UPDATE namespaces SET deleted_at = now() WHERE id = $1", [a]);
    expect((await call(fx.app, "GET", `/namespaces/${a}`, { key: fx.adminKey })).status).toBe(404);
    expect((await call(fx.app, "DELETE", `/namespaces/${a}`, { key: fx.adminKey })).status).toBe(
      404,
    );
  });
});
