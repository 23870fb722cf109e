import { describe, expect, it } from "vitest";
import { newNamespaceId } from "../../../src/domain/placement/ids.js";
import type { Placement } from "../../../src/domain/placement/placement.js";
import { applyProvisioningOutcome } from "../../../src/store/namespace-outcomes.js";
import {
  getNamespace,
  insertNamespace,
  listNamespaces,
  markNamespaceDeleting,
  placementOf,
  type NamespaceCursor,
  type NamespaceRecord,
} from "../../../src/store/namespaces.js";
import { idsOfEveryPage } from "../../harness/pages.js";
import { migratedPgliteForFile, unique } from "../../harness/pglite.js";
import { namespaceRecords } from "./namespace-fixtures.js";

const db = await migratedPgliteForFile();
const { create, tombstone } = namespaceRecords(db);

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
    const seen = await idsOfEveryPage((after: NamespaceCursor | undefined) =>
      listNamespaces(db, { limit: 2, ids, ...(after === undefined ? {} : { after }) }),
    );
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
