/**
 * Small fixtures shared by the store's Namespace suites: records made through the store's own
 * writes (namespaces*.test.ts) and raw rows for the schema suites (schema-namespaces*.test.ts).
 */
import { newNamespaceId, type NamespaceId } from "../../../src/domain/placement/ids.js";
import type { Placement } from "../../../src/domain/placement/placement.js";
import type { Db, SqlParam } from "../../../src/store/db.js";
import { applyTeardownOutcome } from "../../../src/store/namespace-outcomes.js";
import {
  insertNamespace,
  markNamespaceDeleting,
  type NamespaceRecord,
} from "../../../src/store/namespaces.js";
import { unique } from "../../harness/pglite.js";

export const UID = "0f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6";
export const OTHER_UID = "1f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6";

export type Row = Record<string, SqlParam>;

/** Creates and tombstones Namespaces through the store, on `db`. */
export function namespaceRecords(db: Db): {
  create: (placement?: Placement, name?: string) => Promise<NamespaceRecord>;
  tombstone: (id: NamespaceId) => Promise<void>;
} {
  return {
    async create(placement = { mode: "managed" }, name = unique("ns")) {
      const res = await insertNamespace(db, { id: newNamespaceId(), name, placement });
      if (res.outcome !== "inserted") throw new Error(`expected an insert, got ${res.conflict}`);
      return res.namespace;
    },
    async tombstone(id) {
      await markNamespaceDeleting(db, id);
      const res = await applyTeardownOutcome(db, id, { to: "tombstoned" });
      if (res.outcome !== "applied") throw new Error("expected a tombstone");
    },
  };
}

/** Writes namespaces rows in plain SQL on `db`, to test the schema's own guards. */
export function namespaceRows(db: Db): {
  insertRow: (overrides?: Row) => Promise<string>;
  update: (id: string, set: string, params?: SqlParam[]) => Promise<void>;
} {
  return {
    /** Inserts a namespaces row: a valid managed one, changed by `overrides`. */
    async insertRow(overrides = {}) {
      const row: Row = {
        id: newNamespaceId(),
        name: unique("name"),
        placement_mode: "managed",
        existing_namespace: null,
        ...overrides,
      };
      const cols = Object.keys(row);
      await db.query(
        `INSERT INTO namespaces (${cols.join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`,
        Object.values(row),
      );
      return String(row.id);
    },
    async update(id, set, params = []) {
      await db.query(`UPDATE namespaces SET ${set} WHERE id = $1`, [id, ...params]);
    },
  };
}
