/**
 * `POST /namespaces` (control-plane.md §2): the exact check order — schema (reserved names
 * included) → `namespace:create` → `installation:administer` with a selection → the bundled
 * Kubernetes Compute Driver → one transaction — and that a refusal at any step stores nothing
 * but (for 403) its denial event, while success stores the row, its work item and its event.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NamespaceSchema } from "../../../src/contract/namespaces.js";
import { applyTeardownOutcome } from "../../../src/store/namespace-outcomes.js";
import { markNamespaceDeleting } from "../../../src/store/namespaces.js";
import { isServerNamespaceId } from "../../../src/domain/placement/ids.js";
import {
  call,
  counts,
  dataOf,
  errorOf,
  principalWith,
  requestIdOf,
  startApi,
  type ApiFixture,
} from "../../harness/api-app.js";

const CREATE = { action: "create", kind: "namespace" } as const;
const ADMINISTER = { action: "administer", kind: "installation" } as const;

describe("POST /namespaces with the bundled Kubernetes Compute Driver", () => {
  let fx: ApiFixture;
  let creator: { id: string; key: string };
  let nobody: { id: string; key: string };
  beforeAll(async () => {
    fx = await startApi();
    creator = await principalWith(fx, "creator", [CREATE]);
    nobody = await principalWith(fx, "nobody", []);
  });
  afterAll(() => fx.close());

  /** `POST /namespaces` as `key` while the statements `failing` matches fail: 503, nothing stored. */
  async function unavailableWhileFailing(
    failing: (sql: string) => boolean,
    key: string,
    name: string,
  ) {
    const before = await counts(fx.raw);
    const r = await fx.db.whileFailing(failing, () =>
      call(fx.app, "POST", "/namespaces", { key, body: { name } }),
    );
    expect(r.status).toBe(503);
    expect(await counts(fx.raw)).toEqual(before);
    return r;
  }

  it("creates: 201 provisioning, and the row, work item and audit event in one go", async () => {
    const before = await counts(fx.raw);
    const r = await call(fx.app, "POST", "/namespaces", {
      key: creator.key,
      body: { name: "support" },
    });
    expect(r.status).toBe(201);
    const ns = dataOf(r, NamespaceSchema);
    expect(isServerNamespaceId(ns.id)).toBe(true);
    expect(ns).toMatchObject({
      name: "support",
      status: "provisioning",
      placement: { mode: "managed", uid: null },
      statusReason: null,
    });
    expect(ns.placement.kubernetesNamespace).toMatch(/^oce-[0-9a-f]{15}$/);
    expect(ns).not.toHaveProperty("existingNamespace");

    const work = await fx.raw.query(
      "SELECT kind, subject, actor, state FROM work_items WHERE idempotency_key = $1",
      [`namespace:${ns.id}:ready`],
    );
    expect(work.rows).toEqual([
      {
        kind: "namespace.ensure",
        subject: `namespace:${ns.id}`,
        actor: creator.id,
        state: "queued",
      },
    ]);
    const audit = await fx.raw.query(
      "SELECT kind, actor, action, outcome, request_id FROM audit_events WHERE resource_id = $1",
      [ns.id],
    );
    expect(audit.rows).toEqual([
      {
        kind: "mutation",
        actor: creator.id,
        action: "namespaces.create",
        outcome: "success",
        request_id: requestIdOf(r),
      },
    ]);
    const after = await counts(fx.raw);
    expect(after).toEqual({
      ...before,
      namespaces: before.namespaces + 1,
      work_items: before.work_items + 1,
      mutations: before.mutations + 1,
    });
  });

  it("step 1: reserved and malformed selections are 400 for anyone, before authorization", async () => {
    const reserved = [
      "default",
      "kube-system",
      "kube-public",
      "kube-node-lease",
      "kube-anything",
      "openshift-monitoring",
      "oce-0123456789abcde",
      "occ-system",
    ];
    const before = await counts(fx.raw);
    for (const key of [fx.adminKey, nobody.key]) {
      for (const existingNamespace of reserved) {
        const r = await call(fx.app, "POST", "/namespaces", {
          key,
          body: { name: `n-${existingNamespace}`, existingNamespace },
        });
        expect(r.status, existingNamespace).toBe(400);
        expect(errorOf(r).error.details).toEqual([
          { path: "/body/existingNamespace", code: "reserved" },
        ]);
      }
      for (const existingNamespace of ["UPPER", "-lead", "a_b", "x".repeat(64), ""]) {
        const r = await call(fx.app, "POST", "/namespaces", {
          key,
          body: { name: "bad-label", existingNamespace },
        });
        expect(r.status, existingNamespace).toBe(400);
        expect(errorOf(r).error.code).toBe("INVALID_REQUEST");
      }
    }
    for (const name of ["", "x".repeat(201), "tab\there", "nul\u0000", "lone\ud800"]) {
      const r = await call(fx.app, "POST", "/namespaces", { key: fx.adminKey, body: { name } });
      expect(r.status, JSON.stringify(name)).toBe(400);
    }
    // A key sent twice: JSON.parse would keep the second name; the body is refused instead.
    const twice = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: '{"name":"first","name":"second"}',
      headers: { "content-type": "application/json" },
    });
    expect(twice.status).toBe(400);
    expect(errorOf(twice).error).toEqual({
      code: "INVALID_REQUEST",
      message: '/body/name: the key "name" appears twice in one object; send each key once.',
      details: [{ path: "/body/name", code: "invalid_value" }],
    });
    expect(await counts(fx.raw)).toEqual(before);
  });

  it("step 2: without namespace:create → 403 and a denial event, nothing else", async () => {
    const before = await counts(fx.raw);
    const r = await call(fx.app, "POST", "/namespaces", { key: nobody.key, body: { name: "n1" } });
    expect(r.status).toBe(403);
    expect(errorOf(r).error.code).toBe("FORBIDDEN");
    expect(await counts(fx.raw)).toEqual({ ...before, denials: before.denials + 1 });
    const denial = await fx.raw.query(
      `SELECT actor, action, outcome, resource_id, details FROM audit_events
       WHERE kind = 'authorization_denial' AND request_id = $1`,
      [requestIdOf(r)],
    );
    expect(denial.rows).toEqual([
      {
        actor: nobody.id,
        action: "namespaces.create",
        outcome: "denied",
        resource_id: null,
        details: { permission: "namespace:create", reason: "no_grant" },
      },
    ]);
  });

  it("step 3: namespace:create alone cannot select an existing namespace (403, not 409)", async () => {
    // Claim team-x first, so steps 4/5 would refuse too: the caller must still see 403.
    const first = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: { name: "owner-of-team-x", existingNamespace: "team-x" },
    });
    expect(first.status).toBe(201);
    const before = await counts(fx.raw);
    for (const existingNamespace of ["team-x", "team-free"]) {
      const r = await call(fx.app, "POST", "/namespaces", {
        key: creator.key,
        body: { name: `want-${existingNamespace}`, existingNamespace },
      });
      expect(r.status, existingNamespace).toBe(403);
      expect(errorOf(r).error.message).toContain("installation:administer");
    }
    expect(await counts(fx.raw)).toEqual({ ...before, denials: before.denials + 2 });
  });

  it("Installation-only permissions do not come from a Namespace-scoped binding", async () => {
    const scoped = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: { name: "scope" },
    });
    const scopeId = dataOf(scoped, NamespaceSchema).id;
    const local = await principalWith(fx, "local-admin", [CREATE, ADMINISTER], scopeId);
    const r = await call(fx.app, "POST", "/namespaces", {
      key: local.key,
      body: { name: "local-made" },
    });
    expect(r.status).toBe(403);
    const iam = await call(fx.app, "GET", "/principals", { key: local.key });
    expect(iam.status).toBe(403);
  });

  it("step 5: a live name, a retired name, a claimed selection → 409 with the spec's messages", async () => {
    const live = await call(fx.app, "POST", "/namespaces", {
      key: creator.key,
      body: { name: "support" },
    });
    expect(live.status).toBe(409);
    expect(errorOf(live).error).toEqual({
      code: "RESOURCE_CONFLICT",
      message: "A Namespace with this name already exists",
    });

    const gone = dataOf(
      await call(fx.app, "POST", "/namespaces", {
        key: fx.adminKey,
        body: { name: "retired", existingNamespace: "team-retired" },
      }),
      NamespaceSchema,
    );
    const again = { name: "retired-2", existingNamespace: "team-retired" };
    const claimed = await call(fx.app, "POST", "/namespaces", { key: fx.adminKey, body: again });
    expect(errorOf(claimed).error.code).toBe("RESOURCE_CONFLICT");
    // Deleting still holds the claim; only the tombstone releases it.
    if (!isServerNamespaceId(gone.id)) throw new Error("bad id");
    await markNamespaceDeleting(fx.raw, gone.id);
    expect(
      (await call(fx.app, "POST", "/namespaces", { key: fx.adminKey, body: again })).status,
    ).toBe(409);
    await applyTeardownOutcome(fx.raw, gone.id, { to: "tombstoned" });

    const before = await counts(fx.raw);
    const retired = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: { name: "retired" },
    });
    expect(errorOf(retired).error).toEqual({
      code: "RESOURCE_CONFLICT",
      message: "This name belongs to a deleted Namespace and cannot be reused",
    });
    expect(await counts(fx.raw)).toEqual(before);
    const released = await call(fx.app, "POST", "/namespaces", { key: fx.adminKey, body: again });
    expect(released.status).toBe(201);
  });

  it("fails closed: policy unreadable → 503; denial unrecordable → 503, not 403", async () => {
    const policy = await unavailableWhileFailing(
      (sql) => sql.includes("FROM bindings b"),
      creator.key,
      "p1",
    );
    expect(errorOf(policy).error.code).toBe("DEPENDENCY_UNAVAILABLE");
    const denial = await unavailableWhileFailing(
      (sql) => sql.includes("INSERT INTO audit_events"),
      nobody.key,
      "p2",
    );
    expect(errorOf(denial).error.code).toBe("DEPENDENCY_UNAVAILABLE");
  });

  it("rolls the row and work item back when the audit event cannot be written", async () => {
    await unavailableWhileFailing(
      (sql) => sql.includes("INSERT INTO audit_events"),
      creator.key,
      "atomic",
    );
  });

  it("does not audit unauthenticated requests", async () => {
    const before = await counts(fx.raw);
    const r = await call(fx.app, "POST", "/namespaces", {
      headers: {
        authorization: "Bearer occ_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      },
      body: { name: "anon" },
    });
    expect(r.status).toBe(401);
    expect(await counts(fx.raw)).toEqual(before);
  });
});
