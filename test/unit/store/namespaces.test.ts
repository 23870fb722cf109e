import { describe, expect, it } from "vitest";
import { newNamespaceId, type NamespaceId } from "../../../src/domain/placement/ids.js";
import type { Placement } from "../../../src/domain/placement/placement.js";
import {
  applyProvisioningOutcome,
  applyTeardownOutcome,
} from "../../../src/store/namespace-outcomes.js";
import {
  getNamespace,
  insertNamespace,
  listNamespaces,
  markNamespaceDeleting,
  placementOf,
  type NamespaceRecord,
} from "../../../src/store/namespaces.js";
import { migratedPgliteForFile, unique } from "../../harness/pglite.js";

const db = await migratedPgliteForFile();

const UID = "0f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6";

async function create(
  placement: Placement = { mode: "managed" },
  name = unique("ns"),
): Promise<NamespaceRecord> {
  const res = await insertNamespace(db, { id: newNamespaceId(), name, placement });
  if (res.outcome !== "inserted") throw new Error(`expected an insert, got ${res.conflict}`);
  return res.namespace;
}

async function tombstone(id: NamespaceId): Promise<void> {
  await markNamespaceDeleting(db, id);
  const res = await applyTeardownOutcome(db, id, { to: "tombstoned" });
  if (res.outcome !== "applied") throw new Error("expected a tombstone");
}

describe("insertNamespace", () => {
  it("stores a provisioning Namespace with its placement", async () => {
    const selected = unique("team");
    const ns = await create({ mode: "external", existingNamespace: selected });
    expect(ns).toMatchObject({
      status: "provisioning",
      placementMode: "external",
      existingNamespace: selected,
      statusCode: null,
      kubernetesNamespace: null,
      kubernetesUid: null,
      deletedAt: null,
    });
    expect(placementOf(ns)).toEqual({ mode: "external", existingNamespace: selected });
    expect(placementOf(await create())).toEqual({ mode: "managed" });
  });

  it.each<
    [
      string,
      (name: string, selected: string) => Promise<unknown>,
      (name: string, selected: string) => Placement,
      "name" | "other",
      string,
    ]
  >([
    [
      "a live name",
      async (name) => create({ mode: "managed" }, name),
      () => ({ mode: "managed" }),
      "name",
      "name_in_use",
    ],
    [
      "a tombstoned Namespace's name",
      async (name) => tombstone((await create({ mode: "managed" }, name)).id),
      () => ({ mode: "managed" }),
      "name",
      "name_retired",
    ],
    [
      "a selection held by a live Namespace",
      async (_, selected) => create({ mode: "external", existingNamespace: selected }),
      (_, selected) => ({ mode: "external", existingNamespace: selected }),
      "other",
      "existing_namespace_claimed",
    ],
    [
      "a selection held by a failed Namespace",
      async (_, selected) => {
        const ns = await create({ mode: "external", existingNamespace: selected });
        await applyProvisioningOutcome(db, ns.id, {
          to: "failed",
          reason: { code: "KUBERNETES_OWNERSHIP_CONFLICT", message: "foreign markers" },
        });
      },
      (_, selected) => ({ mode: "external", existingNamespace: selected }),
      "other",
      "existing_namespace_claimed",
    ],
    [
      "a selection held by a deleting Namespace",
      async (_, selected) => {
        const ns = await create({ mode: "external", existingNamespace: selected });
        await markNamespaceDeleting(db, ns.id);
      },
      (_, selected) => ({ mode: "external", existingNamespace: selected }),
      "other",
      "existing_namespace_claimed",
    ],
  ])(
    "reports %s as a typed conflict and stores nothing",
    async (_, prepare, placement, nameFrom, conflict) => {
      const name = unique("ns");
      const selected = unique("sel");
      await prepare(name, selected);
      const id = newNamespaceId();
      const res = await insertNamespace(db, {
        id,
        name: nameFrom === "name" ? name : unique("ns"),
        placement: placement(name, selected),
      });
      expect(res).toEqual({ outcome: "conflict", conflict });
      expect(await getNamespace(db, id, { includeTombstoned: true })).toBeUndefined();
    },
  );

  it("lets a new Namespace select an existing namespace once the holder is tombstoned", async () => {
    const selected = unique("sel");
    const first = await create({ mode: "external", existingNamespace: selected });
    await tombstone(first.id);
    const second = await create({ mode: "external", existingNamespace: selected });
    expect(second.existingNamespace).toBe(selected);
  });

  it("keeps the caller's transaction usable after a conflict", async () => {
    const name = unique("ns");
    await create({ mode: "managed" }, name);
    const after = await db.transaction(async (tx) => {
      const res = await insertNamespace(tx, {
        id: newNamespaceId(),
        name,
        placement: { mode: "managed" },
      });
      const next = await tx.query<{ ok: number }>("SELECT 1 AS ok");
      return [res.outcome, next.rows[0]?.ok];
    });
    expect(after).toEqual(["conflict", 1]);
  });

  it("refuses a reused ID loudly (IDs are generated, never chosen)", async () => {
    const ns = await create();
    await expect(
      insertNamespace(db, { id: ns.id, name: unique("ns"), placement: { mode: "managed" } }),
    ).rejects.toThrow(/already exists/);
  });
});

describe("getNamespace and listNamespaces", () => {
  it("hides tombstones unless asked", async () => {
    const ns = await create();
    await tombstone(ns.id);
    expect(await getNamespace(db, ns.id)).toBeUndefined();
    expect((await getNamespace(db, ns.id, { includeTombstoned: true }))?.deletedAt).not.toBeNull();
  });

  it("locks the row with forUpdate inside a transaction", async () => {
    const ns = await create();
    const got = await db.transaction((tx) => getNamespace(tx, ns.id, { forUpdate: true }));
    expect(got?.id).toBe(ns.id);
  });

  it("pages live Namespaces oldest first, restricted to the given IDs", async () => {
    const made: NamespaceRecord[] = [];
    for (let i = 0; i < 5; i += 1) made.push(await create());
    const [a, b, c, d, e] = made;
    if (
      a === undefined ||
      b === undefined ||
      c === undefined ||
      d === undefined ||
      e === undefined
    ) {
      throw new Error("setup");
    }
    await tombstone(c.id);
    const ids = made.map((n) => n.id);
    const seen: string[] = [];
    let page = await listNamespaces(db, { limit: 2, ids });
    seen.push(...page.items.map((n) => n.id));
    while (page.next !== null) {
      page = await listNamespaces(db, { limit: 2, ids, after: page.next });
      seen.push(...page.items.map((n) => n.id));
    }
    // Oldest first; rows created in the same millisecond are ordered by ID.
    const expected = [a, b, d, e]
      .sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : 1))
      .map((n) => n.id);
    expect(seen).toEqual(expected);
    expect((await listNamespaces(db, { limit: 10, ids: [] })).items).toEqual([]);
  });

  it("refuses a page size outside 1–1000", async () => {
    await expect(listNamespaces(db, { limit: 0 })).rejects.toThrow(RangeError);
  });
});

describe("markNamespaceDeleting", () => {
  it("moves to deleting and clears the reason; a second call is already_deleting", async () => {
    const ns = await create();
    await applyProvisioningOutcome(db, ns.id, {
      to: "failed",
      reason: { code: "KUBERNETES_NAMESPACE_MISSING", message: "gone" },
    });
    const first = await markNamespaceDeleting(db, ns.id);
    expect(first.outcome === "marked" && first.namespace).toMatchObject({
      status: "deleting",
      statusCode: null,
      statusReason: null,
    });
    expect((await markNamespaceDeleting(db, ns.id)).outcome).toBe("already_deleting");
  });

  it("is not_found for unknown and tombstoned Namespaces", async () => {
    const ns = await create();
    await tombstone(ns.id);
    expect(await markNamespaceDeleting(db, ns.id)).toEqual({ outcome: "not_found" });
    expect(await markNamespaceDeleting(db, newNamespaceId())).toEqual({ outcome: "not_found" });
  });
});

describe("applyProvisioningOutcome", () => {
  it("pending keeps provisioning with the reason, and keeps `since` while the code is unchanged", async () => {
    const ns = await create({ mode: "external", existingNamespace: unique("sel") });
    const reason = {
      code: "KUBERNETES_PERMISSION_PENDING" as const,
      message: "grant the RoleBinding",
    };
    const first = await applyProvisioningOutcome(db, ns.id, { to: "provisioning", reason });
    const second = await applyProvisioningOutcome(db, ns.id, { to: "provisioning", reason });
    const changed = await applyProvisioningOutcome(db, ns.id, {
      to: "provisioning",
      reason: { code: "KUBERNETES_API_UNAVAILABLE", message: "503" },
    });
    if (
      first.outcome !== "applied" ||
      second.outcome !== "applied" ||
      changed.outcome !== "applied"
    ) {
      throw new Error("expected applied");
    }
    expect(first.namespace).toMatchObject({
      status: "provisioning",
      statusCode: "KUBERNETES_PERMISSION_PENDING",
      statusReason: "grant the RoleBinding",
    });
    expect(second.namespace.statusSince).toEqual(first.namespace.statusSince);
    expect(changed.namespace.statusCode).toBe("KUBERNETES_API_UNAVAILABLE");
    expect(changed.namespace.statusSince?.getTime()).toBeGreaterThanOrEqual(
      first.namespace.statusSince?.getTime() ?? Infinity,
    );
  });

  it("ready clears the reason and records the binding", async () => {
    const selected = unique("sel");
    const ns = await create({ mode: "external", existingNamespace: selected });
    await applyProvisioningOutcome(db, ns.id, {
      to: "provisioning",
      reason: { code: "KUBERNETES_PERMISSION_PENDING", message: "wait" },
    });
    const res = await applyProvisioningOutcome(db, ns.id, {
      to: "ready",
      binding: { namespace: selected, uid: UID },
    });
    expect(res.outcome === "applied" && res.namespace).toMatchObject({
      status: "ready",
      statusCode: null,
      statusReason: null,
      statusSince: null,
      kubernetesNamespace: selected,
      kubernetesUid: UID,
    });
  });

  it("records a binding seen while still pending, and refuses to replace it", async () => {
    const ns = await create();
    const binding = { namespace: unique("oce"), uid: UID };
    const res = await applyProvisioningOutcome(db, ns.id, {
      to: "provisioning",
      reason: { code: "KUBERNETES_NAMESPACE_PENDING", message: "not Active yet" },
      binding,
    });
    expect(res.outcome === "applied" && res.namespace.kubernetesUid).toBe(UID);
    await expect(
      applyProvisioningOutcome(db, ns.id, {
        to: "ready",
        binding: { ...binding, uid: "1f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6" },
      }),
    ).rejects.toThrow(/binding is written once/);
  });

  it("accepts a new UID while an administrator's retry is pending, and clears the retry", async () => {
    const ns = await create();
    const name = unique("oce");
    await applyProvisioningOutcome(db, ns.id, {
      to: "provisioning",
      reason: { code: "KUBERNETES_PERMISSION_PENDING", message: "no RoleBinding yet" },
      binding: { namespace: name, uid: UID },
    });
    await db.query("UPDATE namespaces SET retry_requested_at = now() WHERE id = $1", [ns.id]);
    const other = "2f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6";
    const res = await applyProvisioningOutcome(db, ns.id, {
      to: "provisioning",
      reason: { code: "KUBERNETES_PERMISSION_PENDING", message: "no RoleBinding yet" },
      binding: { namespace: name, uid: other },
    });
    expect(res.outcome === "applied" && res.namespace).toMatchObject({
      kubernetesUid: other,
      observedKubernetesUid: other,
      retryRequestedAt: null,
    });
    expect(res.outcome === "applied" && res.namespace.lastReconciledAt).toBeInstanceOf(Date);
  });

  it("failed stores the code and a sanitized reason", async () => {
    const ns = await create();
    const res = await applyProvisioningOutcome(db, ns.id, {
      to: "failed",
      reason: { code: "AUTHORIZATION_DENIED", message: `revoked\n${"x".repeat(400)}` },
    });
    if (res.outcome !== "applied") throw new Error("expected applied");
    expect(res.namespace.status).toBe("failed");
    expect(res.namespace.statusCode).toBe("AUTHORIZATION_DENIED");
    expect(res.namespace.statusReason?.length).toBe(256);
    expect(res.namespace.statusReason).not.toContain("\n");
  });

  it.each([
    [
      "ready",
      async (id: NamespaceId) => {
        await applyProvisioningOutcome(db, id, {
          to: "ready",
          binding: { namespace: unique("oce"), uid: UID },
        });
      },
    ],
    [
      "deleting",
      async (id: NamespaceId) => {
        await markNamespaceDeleting(db, id);
      },
    ],
    ["tombstoned", tombstone],
  ])("is superseded once the Namespace is %s, changing nothing", async (_, moveOn) => {
    const ns = await create();
    await moveOn(ns.id);
    const before = await getNamespace(db, ns.id, { includeTombstoned: true });
    const res = await applyProvisioningOutcome(db, ns.id, {
      to: "failed",
      reason: { code: "KUBERNETES_API_REJECTED", message: "late result" },
    });
    expect(res).toEqual({ outcome: "superseded", current: before });
  });
});

describe("applyTeardownOutcome", () => {
  it("keeps deleting with a reason, then tombstones and removes the Namespace's IAM policy", async () => {
    const ns = await create();
    await db.query("INSERT INTO principals (id, kind, name) VALUES ($1, 'user', $1)", [
      `prn_${ns.id}`,
    ]);
    await db.query("INSERT INTO roles (id, name) VALUES ($1, $1)", [`role_${ns.id}`]);
    await db.query(
      "INSERT INTO bindings (id, principal_id, role_id, namespace_id) VALUES ($1, $2, $3, $4), ($5, $2, $3, NULL)",
      [`bnd_${ns.id}`, `prn_${ns.id}`, `role_${ns.id}`, ns.id, `bnd_g_${ns.id}`],
    );
    await db.query("INSERT INTO restrictions (id, namespace_id) VALUES ($1, $2)", [
      `rst_${ns.id}`,
      ns.id,
    ]);
    await markNamespaceDeleting(db, ns.id);

    const waiting = await applyTeardownOutcome(db, ns.id, {
      to: "deleting",
      reason: { code: "KUBERNETES_NAMESPACE_PENDING", message: "terminating" },
    });
    expect(waiting.outcome === "applied" && waiting.namespace).toMatchObject({
      status: "deleting",
      statusCode: "KUBERNETES_NAMESPACE_PENDING",
      deletedAt: null,
    });

    const done = await applyTeardownOutcome(db, ns.id, { to: "tombstoned" });
    expect(done.outcome === "applied" && done.namespace).toMatchObject({
      status: "deleting",
      statusCode: null,
    });
    expect(done.outcome === "applied" && done.namespace.deletedAt).toBeInstanceOf(Date);
    const left = await db.query<{ id: string }>(
      "SELECT id FROM bindings WHERE principal_id = $1 UNION ALL SELECT id FROM restrictions WHERE namespace_id = $2",
      [`prn_${ns.id}`, ns.id],
    );
    expect(left.rows.map((r) => r.id)).toEqual([`bnd_g_${ns.id}`]);
  });

  it("is superseded for a Namespace that is not deleting, or already tombstoned", async () => {
    const ns = await create();
    expect((await applyTeardownOutcome(db, ns.id, { to: "tombstoned" })).outcome).toBe(
      "superseded",
    );
    await tombstone(ns.id);
    const again = await applyTeardownOutcome(db, ns.id, { to: "tombstoned" });
    expect(again.outcome === "superseded" && again.current?.deletedAt).toBeInstanceOf(Date);
  });
});
