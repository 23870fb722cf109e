import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newNamespaceId } from "../../../src/domain/placement/ids.js";
import { requireBoundNamespaceRecord } from "../../../src/services/preprovisioned/bound-record.js";
import { StartupRefusedError } from "../../../src/services/preprovisioned/startup.js";
import type { Db } from "../../../src/store/db.js";
import { applyTeardownOutcome } from "../../../src/store/namespace-outcomes.js";
import { insertNamespace, markNamespaceDeleting } from "../../../src/store/namespaces.js";
import { openMigratedPglite, unique } from "../../harness/pglite.js";

/**
 * The bound Namespace must be a live row of the database (preprovisioned.md §1); the startup
 * refusal of a mistyped or deleted ID names it, the Namespaces that exist and the fix. The
 * spawned `occ api|worker` cases are in test/integration/preprovisioned/startup.test.ts.
 */
let db: Db;
beforeAll(async () => {
  db = await openMigratedPglite();
});
afterAll(async () => {
  await db.close();
});

const UID = "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60";
const refusalOf = async (namespaceId: ReturnType<typeof newNamespaceId>) => {
  const err = await requireBoundNamespaceRecord(db, { namespaceId, uid: UID }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StartupRefusedError);
  return (err as Error).message;
};

describe("the bound Namespace's row", () => {
  it("an empty database: the ID, and run occ bootstrap", async () => {
    const id = newNamespaceId();
    expect(await refusalOf(id)).toContain(
      `names Namespace ${id}, which does not exist in this database`,
    );
    expect(await refusalOf(id)).toContain("This database has no Namespace: run occ bootstrap");
  });

  it("a live row passes; a mistyped ID lists the live ones", async () => {
    const live = newNamespaceId();
    const name = unique("team");
    await insertNamespace(db, { id: live, name, placement: { mode: "managed" } });
    await expect(requireBoundNamespaceRecord(db, { namespaceId: live, uid: UID })).resolves.toBe(
      undefined,
    );
    const message = await refusalOf(newNamespaceId());
    expect(message).toContain(`The Namespaces in this database: ${live} (${name}).`);
    expect(message).toContain("occ namespaces list");
  });

  it("a deleted (tombstoned) Namespace is refused as deleted", async () => {
    const gone = newNamespaceId();
    const name = unique("gone");
    await insertNamespace(db, { id: gone, name, placement: { mode: "managed" } });
    expect((await markNamespaceDeleting(db, gone)).outcome).toBe("marked");
    expect((await applyTeardownOutcome(db, gone, { to: "tombstoned" })).outcome).toBe("applied");
    const message = await refusalOf(gone);
    expect(message).toContain(`names Namespace ${gone}, which was deleted (${name})`);
    expect(message).not.toContain(`${gone} (${name}),`);
  });
});
