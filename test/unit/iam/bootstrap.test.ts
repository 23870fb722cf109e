/**
 * `bootstrap` (control-plane.md §3): creates the Installation, the administrator Role and
 * principal with one key, and the `default` Namespace through the ordinary creation path —
 * and running it again, after success, after a partial failure or concurrently, changes
 * nothing and never issues a second key.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NamespaceServiceDeps } from "../../../src/services/namespaces/deps.js";
import { namespaceQueueConfig } from "../../../src/work/namespace-work.js";
import { authenticateApiKey } from "../../../src/iam/api-keys.js";
import { authorize } from "../../../src/iam/authorizer.js";
import { bootstrap } from "../../../src/services/bootstrap.js";
import { ALL_PERMISSIONS } from "../../../src/domain/iam/vocabulary.js";
import type { Db } from "../../../src/store/db.js";
import { faulty, type FaultyDb } from "../../harness/faulty-db.js";
import { openMigratedPglite } from "../../harness/pglite.js";

let raw: Db;
let db: FaultyDb;
let deps: NamespaceServiceDeps;

beforeEach(async () => {
  raw = await openMigratedPglite();
  db = faulty(raw);
  deps = {
    db,
    queue: namespaceQueueConfig(),
    compute: { source: "bundled", name: "kubernetes" },
    controllerNamespace: "occ-system",
    contentChecks: [],
  };
});
afterEach(() => raw.close());

async function tableCounts(): Promise<Record<string, number>> {
  const res = await raw.query<{ t: string; n: number }>(
    `SELECT 'installation' AS t, count(*)::int AS n FROM installation
     UNION ALL SELECT 'roles', count(*)::int FROM roles
     UNION ALL SELECT 'role_permissions', count(*)::int FROM role_permissions
     UNION ALL SELECT 'principals', count(*)::int FROM principals
     UNION ALL SELECT 'bindings', count(*)::int FROM bindings
     UNION ALL SELECT 'api_keys', count(*)::int FROM api_keys
     UNION ALL SELECT 'namespaces', count(*)::int FROM namespaces
     UNION ALL SELECT 'work_items', count(*)::int FROM work_items
     UNION ALL SELECT 'audit_events', count(*)::int FROM audit_events`,
  );
  return Object.fromEntries(res.rows.map((r) => [r.t, r.n]));
}

describe("bootstrap", () => {
  it("creates everything once, with a working administrator key", async () => {
    const first = await bootstrap(deps);
    expect(first.apiKey).toMatch(/^occ_/);
    expect(first.defaultNamespace.state).toBe("created");
    expect(await tableCounts()).toEqual({
      installation: 1,
      roles: 1,
      role_permissions: ALL_PERMISSIONS.length,
      principals: 1,
      bindings: 1,
      api_keys: 1,
      namespaces: 1,
      work_items: 1,
      audit_events: 3,
    });
    const auth = await authenticateApiKey(raw, first.apiKey ?? "");
    expect(auth).toMatchObject({
      outcome: "authenticated",
      principal: { id: first.administratorId },
    });
    for (const permission of ALL_PERMISSIONS) {
      expect((await authorize(raw, first.administratorId, { permission })).allowed).toBe(true);
    }
  });

  it("creates `default` through the ordinary path: work item and event with the administrator", async () => {
    const first = await bootstrap(deps);
    const ns = await raw.query<{
      id: string;
      name: string;
      placement_mode: string;
      status: string;
    }>("SELECT id, name, placement_mode, status FROM namespaces");
    expect(ns.rows).toEqual([
      {
        id: first.defaultNamespace.id,
        name: "default",
        placement_mode: "managed",
        status: "provisioning",
      },
    ]);
    const work = await raw.query("SELECT idempotency_key, kind, actor FROM work_items");
    expect(work.rows).toEqual([
      {
        idempotency_key: `namespace:${first.defaultNamespace.id}:ready`,
        kind: "namespace.ensure",
        actor: first.administratorId,
      },
    ]);
    const events = await raw.query(
      "SELECT actor, action FROM audit_events WHERE resource_kind = 'namespace'",
    );
    expect(events.rows).toEqual([{ actor: first.administratorId, action: "namespaces.create" }]);
  });

  it("is idempotent: a second run returns the same IDs, no key, and changes nothing", async () => {
    const first = await bootstrap(deps);
    const before = await tableCounts();
    const second = await bootstrap(deps);
    expect(second).toEqual({
      ...first,
      apiKey: null,
      defaultNamespace: { ...first.defaultNamespace, state: "existing" },
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("recovers from a failure after the first phase, and the key is issued by the run that completes", async () => {
    await expect(
      db.whileFailing(
        (sql) => sql.includes("INSERT INTO namespaces"),
        () => bootstrap(deps),
      ),
    ).rejects.toThrow();
    expect((await tableCounts()).api_keys).toBe(0);
    const retry = await bootstrap(deps);
    expect(retry.apiKey).toMatch(/^occ_/);
    expect(retry.defaultNamespace.state).toBe("created");
    expect((await tableCounts()).principals).toBe(1);
  });

  it("issues exactly one key when two runs race", async () => {
    const [x, y] = await Promise.all([bootstrap(deps), bootstrap(deps)]);
    expect([x.apiKey, y.apiKey].filter((k) => k !== null)).toHaveLength(1);
    expect(x.administratorId).toBe(y.administratorId);
    expect(await tableCounts()).toMatchObject({ api_keys: 1, namespaces: 1, principals: 1 });
  });

  it("does not recreate a deleted `default`: the name stays retired", async () => {
    const first = await bootstrap(deps);
    await raw.query("UPDATE namespaces SET status = 'deleting' WHERE id = $1", [
      first.defaultNamespace.id,
    ]);
    await raw.query("UPDATE namespaces SET deleted_at = now() WHERE id = $1", [
      first.defaultNamespace.id,
    ]);
    const again = await bootstrap(deps);
    expect(again.defaultNamespace).toEqual({ id: first.defaultNamespace.id, state: "retired" });
    expect((await tableCounts()).namespaces).toBe(1);
  });
});
