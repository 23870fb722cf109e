/**
 * The teardown write the worker's namespace record declares (`namespace-teardown.ts`): the
 * store's tombstone and IAM's removal of the Namespace's bindings and restrictions, in the one
 * settle transaction; a superseded teardown removes nothing.
 */
import { describe, expect, it } from "vitest";
import type { NamespaceId } from "../../../src/domain/placement/ids.js";
import { getNamespace, markNamespaceDeleting } from "../../../src/store/namespaces.js";
import type { TeardownOutcome } from "../../../src/store/namespace-outcomes.js";
import { teardownWrite } from "../../../src/worker/namespace-teardown.js";
import { runWrites } from "../../../src/worker/record-writes.js";
import { migratedPgliteForFile } from "../../harness/pglite.js";
import { namespaceRecords } from "../store/namespace-fixtures.js";

const db = await migratedPgliteForFile();
const { create } = namespaceRecords(db);

/** A Namespace with one binding and one restriction scoped to it, and one global binding. */
async function withPolicy(): Promise<NamespaceId> {
  const { id } = await create();
  await db.query("INSERT INTO principals (id, kind, name) VALUES ($1, 'user', $1)", [`prn_${id}`]);
  await db.query("INSERT INTO roles (id, name) VALUES ($1, $1)", [`role_${id}`]);
  await db.query(
    "INSERT INTO bindings (id, principal_id, role_id, namespace_id) VALUES ($1, $2, $3, $4), ($5, $2, $3, NULL)",
    [`bnd_${id}`, `prn_${id}`, `role_${id}`, id, `bnd_g_${id}`],
  );
  await db.query("INSERT INTO restrictions (id, namespace_id) VALUES ($1, $2)", [`rst_${id}`, id]);
  return id;
}

const policyLeft = async (id: NamespaceId): Promise<string[]> =>
  (
    await db.query<{ id: string }>(
      "SELECT id FROM bindings WHERE principal_id = $1 UNION ALL SELECT id FROM restrictions WHERE namespace_id = $2",
      [`prn_${id}`, id],
    )
  ).rows
    .map((r) => r.id)
    .sort();

const settle = (id: NamespaceId, outcome: TeardownOutcome): Promise<void> =>
  db.transaction((tx) => runWrites(tx, [teardownWrite(id, outcome)]));

describe("the teardown write of a Namespace", () => {
  it("tombstones and removes the Namespace's bindings and restrictions, not global ones", async () => {
    const id = await withPolicy();
    await markNamespaceDeleting(db, id);
    await settle(id, {
      to: "deleting",
      reason: { code: "KUBERNETES_NAMESPACE_PENDING", message: "terminating" },
    });
    expect(await policyLeft(id)).toEqual([`bnd_g_${id}`, `bnd_${id}`, `rst_${id}`]);
    await settle(id, { to: "tombstoned" });
    expect((await getNamespace(db, id, { includeTombstoned: true }))?.deletedAt).toBeInstanceOf(
      Date,
    );
    expect(await policyLeft(id)).toEqual([`bnd_g_${id}`]);
  });

  it("removes nothing when the tombstone is superseded (the Namespace is not deleting)", async () => {
    const id = await withPolicy();
    await settle(id, { to: "tombstoned" });
    expect((await getNamespace(db, id))?.deletedAt).toBeNull();
    expect(await policyLeft(id)).toEqual([`bnd_g_${id}`, `bnd_${id}`, `rst_${id}`]);
  });
});
