import { describe, expect, it } from "vitest";
import {
  appendAuditEvent,
  listAuditEvents,
  type AuditCursor,
  type AuditEventRecord,
} from "../../../src/store/audit-events.js";
import { idsOfEveryPage } from "../../harness/pages.js";
import { migratedPgliteForFile, unique } from "../../harness/pglite.js";

const db = await migratedPgliteForFile();

describe("appendAuditEvent", () => {
  it("stores a mutation with its details and returns it", async () => {
    const at = new Date("2030-05-01T10:00:00.123Z");
    const e = await appendAuditEvent(db, {
      kind: "mutation",
      outcome: "success",
      actor: "prn_admin",
      action: "namespaces.create",
      resourceKind: "namespace",
      resourceId: "ns_example",
      requestId: "req_1",
      details: { evidence: { binding: "bnd_1", permission: "namespace:create" }, codes: [] },
      occurredAt: at,
    });
    expect(e).toMatchObject({
      occurredAt: at,
      kind: "mutation",
      outcome: "success",
      actor: "prn_admin",
      resourceId: "ns_example",
      requestId: "req_1",
      details: { evidence: { binding: "bnd_1", permission: "namespace:create" }, codes: [] },
    });
  });

  it("stores a denial on a collection without resource ID or details", async () => {
    const e = await appendAuditEvent(db, {
      kind: "authorization_denial",
      outcome: "denied",
      actor: "prn_bob",
      action: "namespaces.create",
      resourceKind: "namespace",
    });
    expect(e).toMatchObject({ resourceId: null, requestId: null, details: {} });
  });

  it("commits with the mutation or not at all", async () => {
    const action = `namespaces.test_${unique("a").replace("-", "_")}`;
    await db
      .transaction(async (tx) => {
        await appendAuditEvent(tx, {
          kind: "mutation",
          outcome: "success",
          actor: "prn_a",
          action,
          resourceKind: "namespace",
        });
        throw new Error("mutation failed");
      })
      .catch(() => undefined);
    const n = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_events WHERE action = $1",
      [action],
    );
    expect(n.rows[0]?.n).toBe(0);
  });
});

describe("listAuditEvents", () => {
  it("pages newest first and filters by resource", async () => {
    const resourceId = unique("ns_page");
    const made: AuditEventRecord[] = [];
    for (let i = 0; i < 5; i += 1) {
      made.push(
        await appendAuditEvent(db, {
          kind: "lifecycle",
          outcome: i === 4 ? "failure" : "success",
          actor: "prn_worker",
          action: "namespaces.lifecycle.ensure",
          resourceKind: "namespace",
          resourceId,
          occurredAt: new Date(Date.UTC(2031, 0, 1, 0, 0, i)),
        }),
      );
    }
    const resource = { kind: "namespace", id: resourceId };
    const seen = await idsOfEveryPage((before: AuditCursor | undefined) =>
      listAuditEvents(db, { limit: 2, resource, ...(before === undefined ? {} : { before }) }),
    );
    expect(seen).toEqual(made.map((e) => e.id).reverse());
  });
});
