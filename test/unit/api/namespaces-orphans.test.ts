/**
 * The orphan routes' refusals (quality.md R9): administrators only, authorized first and the
 * denial audited; an API that may not list namespaces answers 503; an import of an ID the
 * database knows is refused with nothing stored. The report itself and a real import run
 * against the real cluster in test/integration/ha/restore.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  call,
  createNamespace,
  errorOf,
  principalWith,
  apiForFile,
} from "../../harness/api-app.js";

const fx = await apiForFile();

const body = (staleNamespaceId: string) => ({
  name: "imported",
  existingNamespace: "team-a",
  staleNamespaceId,
  released: { labels: [], annotations: [], ownedObjects: 0 },
});

describe("GET /namespaces/orphans and POST /namespaces/imports", () => {
  it("refuses a caller who may create Namespaces but not administer the Installation", async () => {
    const creator = await principalWith(fx, "orphan-creator", [
      { action: "create", kind: "namespace" },
    ]);
    for (const r of [
      await call(fx.app, "GET", "/namespaces/orphans", { key: creator.key }),
      await call(fx.app, "POST", "/namespaces/imports", {
        key: creator.key,
        body: body("ns_01jstale"),
      }),
    ]) {
      expect(r.status, r.text).toBe(403);
    }
    const denials = await fx.raw.query<{ action: string }>(
      "SELECT action FROM audit_events WHERE kind = 'authorization_denial' AND actor = $1 ORDER BY action",
      [creator.id],
    );
    expect(denials.rows.map((r) => r.action)).toEqual(["namespaces.import", "namespaces.orphans"]);
  });

  it("answers 503 where namespaces cannot be listed, and stores nothing", async () => {
    const known = await createNamespace(fx, "known-tenant");
    for (const r of [
      await call(fx.app, "GET", "/namespaces/orphans", { key: fx.adminKey }),
      await call(fx.app, "POST", "/namespaces/imports", { key: fx.adminKey, body: body(known) }),
    ]) {
      expect(r.status, r.text).toBe(503);
      expect(errorOf(r).error.code).toBe("DEPENDENCY_UNAVAILABLE");
    }
    const rows = await fx.raw.query("SELECT id FROM namespaces WHERE name = 'imported'");
    expect(rows.rows).toEqual([]);
  });
});
