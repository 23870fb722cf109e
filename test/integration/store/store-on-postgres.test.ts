/**
 * Every store function once on real PostgreSQL 15, so the SQL the unit tests prove on PGlite is
 * known to behave the same on the production server (parameter typing, timestamps, jsonb).
 */
import { describe, expect, it } from "vitest";
import { newNamespaceId } from "../../../src/domain/placement/ids.js";
import { appendAuditEvent, listAuditEvents } from "../../../src/store/audit-events.js";
import {
  applyProvisioningOutcome,
  applyTeardownOutcome,
} from "../../../src/store/namespace-outcomes.js";
import {
  getNamespace,
  insertNamespace,
  listNamespaces,
  markNamespaceDeleting,
} from "../../../src/store/namespaces.js";
import { migratedDatabaseForFile } from "../../harness/db.js";

const t = await migratedDatabaseForFile();

const UID = "0f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6";

describe("store functions on PostgreSQL", () => {
  it("take an external Namespace through its whole life", async () => {
    const id = newNamespaceId();
    const ins = await insertNamespace(t.db, {
      id,
      name: "support",
      placement: { mode: "external", existingNamespace: "customer-support-prod" },
    });
    expect(ins.outcome).toBe("inserted");

    const pending = await t.db.transaction((tx) =>
      applyProvisioningOutcome(tx, id, {
        to: "provisioning",
        reason: { code: "KUBERNETES_PERMISSION_PENDING", message: "grant the worker RoleBinding" },
      }),
    );
    expect(pending.outcome === "applied" && pending.namespace.statusSince).toBeInstanceOf(Date);

    const ready = await applyProvisioningOutcome(t.db, id, {
      to: "ready",
      binding: { namespace: "customer-support-prod", uid: UID },
    });
    expect(ready.outcome === "applied" && ready.namespace).toMatchObject({
      status: "ready",
      kubernetesUid: UID,
      statusCode: null,
    });

    const page = await listNamespaces(t.db, { limit: 10, ids: [id] });
    expect(page.items.map((n) => n.id)).toEqual([id]);
    expect(
      (await t.db.transaction((tx) => getNamespace(tx, id, { forUpdate: true })))?.status,
    ).toBe("ready");

    expect((await markNamespaceDeleting(t.db, id)).outcome).toBe("marked");
    const waiting = await applyTeardownOutcome(t.db, id, {
      to: "deleting",
      reason: { code: "KUBERNETES_NAMESPACE_PENDING", message: "owned objects still present" },
    });
    expect(waiting.outcome).toBe("applied");
    const done = await applyTeardownOutcome(t.db, id, { to: "tombstoned" });
    expect(done.outcome === "applied" && done.namespace.deletedAt).toBeInstanceOf(Date);
    expect(await getNamespace(t.db, id)).toBeUndefined();

    const reuse = await insertNamespace(t.db, {
      id: newNamespaceId(),
      name: "support",
      placement: { mode: "external", existingNamespace: "customer-support-prod" },
    });
    expect(reuse).toEqual({ outcome: "conflict", conflict: "name_retired" });
    const other = await insertNamespace(t.db, {
      id: newNamespaceId(),
      name: "support-2",
      placement: { mode: "external", existingNamespace: "customer-support-prod" },
    });
    expect(other.outcome).toBe("inserted");
  });

  it("append and page audit events with jsonb details", async () => {
    const first = await appendAuditEvent(t.db, {
      kind: "authorization_denial",
      outcome: "denied",
      actor: "prn_bob",
      action: "namespaces.create",
      resourceKind: "namespace",
      details: { missing: ["installation:administer"] },
      occurredAt: new Date("2030-01-01T00:00:00.000Z"),
    });
    const second = await appendAuditEvent(t.db, {
      kind: "mutation",
      outcome: "success",
      actor: "prn_admin",
      action: "namespaces.create",
      resourceKind: "namespace",
      resourceId: "ns_x",
      requestId: "req_1",
      occurredAt: new Date("2030-01-01T00:00:00.001Z"),
    });
    const page = await listAuditEvents(t.db, { limit: 1 });
    expect(page.items.map((e) => e.id)).toEqual([second.id]);
    if (page.next === null) throw new Error("expected another page");
    const older = await listAuditEvents(t.db, { limit: 1, before: page.next });
    expect(older.items[0]).toEqual(first);
    expect(older.items[0]?.details).toEqual({ missing: ["installation:administer"] });
  });
});
