import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type OccApp } from "../../../src/api/app.js";
import { currentManagedName, type NamespaceId } from "../../../src/domain/index.js";
import type { Db } from "../../../src/store/db.js";
import { createBootstrappedDatabase } from "../../harness/db.js";
import { postWithKey } from "./file-stacks.js";

/**
 * In the preprovisioned profile `POST /namespaces` can only ever create a Namespace that fails
 * in the worker (a fresh ID is never the bound one; `existingNamespace` is refused by
 * Compute). The API refuses it in the request, naming the bound Namespace, and stores nothing.
 */
let db: Db;
let drop: () => Promise<void>;
let app: OccApp;
let normal: OccApp;
let key: string;
let bound: NamespaceId;

beforeAll(async () => {
  ({ db, drop, apiKey: key, defaultNamespaceId: bound } = await createBootstrappedDatabase());
  app = await buildApp({
    db,
    controllerNamespace: "openclaw-system",
    preprovisionedNamespaceId: bound,
  });
  normal = await buildApp({ db, controllerNamespace: "openclaw-system" });
});

afterAll(async () => {
  await app.close();
  await normal.close();
  await drop();
});

const post = (on: OccApp, body: object) => postWithKey(on, key, "/namespaces", body);

async function stored(): Promise<{ namespaces: number; work: number; audit: number }> {
  const n = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM namespaces");
  const w = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM work_items");
  const a = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM audit_events WHERE action = 'namespaces.create'",
  );
  return { namespaces: n.rows[0]?.n ?? -1, work: w.rows[0]?.n ?? -1, audit: a.rows[0]?.n ?? -1 };
}

describe("POST /namespaces in the preprovisioned profile", () => {
  it.each([
    ["a managed Namespace (any other ID)", { name: "another" }, "no other Namespace can be placed"],
    [
      "an existingNamespace",
      { name: "adopting", existingNamespace: "customer-support-prod" },
      "existingNamespace cannot be selected",
    ],
  ])(
    "%s → 409 NAMESPACE_NOT_PLACEABLE naming the bound Namespace; nothing stored",
    async (_what, body, says) => {
      const before = await stored();
      const res = await post(app, body);
      expect([res.status, res.body.error?.code]).toEqual([409, "NAMESPACE_NOT_PLACEABLE"]);
      expect(res.body.error?.message).toContain(bound);
      expect(res.body.error?.message).toContain(currentManagedName(bound));
      expect(res.body.error?.message).toContain(says);
      expect(await stored()).toEqual(before);
    },
  );

  it("validation and authorization still come first: a reserved existingNamespace is 400, a bad key 401", async () => {
    const reserved = await post(app, { name: "x", existingNamespace: "kube-system" });
    expect([reserved.status, reserved.body.error?.code]).toEqual([400, "INVALID_REQUEST"]);
    const anonymous = await app.inject({
      method: "POST",
      url: "/namespaces",
      payload: { name: "x" },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it("the normal profile still creates, and refuses a claimed existingNamespace in the request (409)", async () => {
    const created = await post(normal, { name: "first", existingNamespace: "team-a" });
    expect(created.status).toBe(201);
    const again = await post(normal, { name: "second", existingNamespace: "team-a" });
    expect([again.status, again.body.error?.code]).toEqual([409, "RESOURCE_CONFLICT"]);
  });
});
