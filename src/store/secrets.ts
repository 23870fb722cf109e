/**
 * Secret metadata (drivers.md §2): one row per OCC Secret, pinning the Kubernetes namespace
 * (name and UID) and the Secret object (name, UID, resourceVersion) that hold its value. The
 * value itself is never stored here, nor anywhere but the Kubernetes Secret.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { defineTable, integer, text, timestamp, type RowOf, namespaceIdColumn } from "./columns.js";
import type { StoredObject } from "./configurations.js";
import type { Queryable } from "./db.js";
import { namespaceRows } from "./resource-paging.js";

export const secretsTable = defineTable("secrets", {
  id: text,
  namespaceId: namespaceIdColumn,
  name: text,
  version: integer,
  kubernetesNamespace: text,
  namespaceUid: text,
  objectName: text,
  objectUid: text,
  resourceVersion: text,
  createdAt: timestamp,
  updatedAt: timestamp,
});

export type SecretRecord = RowOf<typeof secretsTable.columns>;

const COLUMNS = secretsTable.select();

/** A Namespace's Secrets by ID, and their pages. */
export const secretRows = namespaceRows(secretsTable);

/**
 * Inserts a Secret row; `name_in_use` when the Namespace already has one of that name
 * (`ON CONFLICT DO NOTHING`, so the caller's transaction stays usable).
 */
export async function insertSecret(
  q: Queryable,
  input: StoredObject & {
    readonly id: string;
    readonly namespaceId: NamespaceId;
    readonly name: string;
  },
): Promise<{ outcome: "inserted"; secret: SecretRecord } | { outcome: "name_in_use" }> {
  const res = await q.query(
    `INSERT INTO secrets (id, namespace_id, name, version, kubernetes_namespace, namespace_uid,
       object_name, object_uid, resource_version)
     VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8)
     ON CONFLICT ON CONSTRAINT secrets_name_unique DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      input.id,
      input.namespaceId,
      input.name,
      input.kubernetesNamespace,
      input.namespaceUid,
      input.objectName,
      input.objectUid,
      input.resourceVersion,
    ],
  );
  const secret = secretsTable.decodeFirst(res.rows);
  return secret === undefined ? { outcome: "name_in_use" } : { outcome: "inserted", secret };
}

/** True when Namespace `namespaceId` has a Secret named `name` (checked before any write). */
export async function secretNameTaken(
  q: Queryable,
  namespaceId: NamespaceId,
  name: string,
): Promise<boolean> {
  const res = await q.query("SELECT 1 FROM secrets WHERE namespace_id = $1 AND name = $2", [
    namespaceId,
    name,
  ]);
  return res.rows.length > 0;
}

/** Records a new value's object version (version + 1). */
export async function recordSecretUpdate(
  q: Queryable,
  id: string,
  resourceVersion: string,
): Promise<SecretRecord> {
  const res = await q.query(
    `UPDATE secrets SET version = version + 1, resource_version = $2, updated_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, resourceVersion],
  );
  return secretsTable.decode(res.rows[0]);
}

/** True when a ServiceAccount names the Secret as its credential. */
export async function secretInUse(q: Queryable, id: string): Promise<boolean> {
  const res = await q.query("SELECT 1 FROM service_accounts WHERE credential_secret_id = $1", [id]);
  return res.rows.length > 0;
}

export async function deleteSecretRow(q: Queryable, id: string): Promise<void> {
  await q.query("DELETE FROM secrets WHERE id = $1", [id]);
}
