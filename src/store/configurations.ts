/**
 * Configuration metadata (drivers.md §1): one row per Configuration, pinning the Kubernetes
 * namespace (name and UID) and the ConfigMap (name, UID, resourceVersion) that hold its
 * document, its generation and the SHA-256 of the stored document. Every function takes a
 * `Queryable`, so the API composes a change, its audit event and the object write's
 * compensation in one transaction.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { defineTable, integer, oneOf, text, timestamp, namespaceIdColumn } from "./columns.js";
import type { RowOf } from "./columns.js";
import type { Queryable } from "./db.js";
import { namespaceRows } from "./resource-paging.js";
import { CONFIGURATION_KINDS, type ConfigurationKind } from "../domain/tenant/vocabulary.js";

export const configurationsTable = defineTable("configurations", {
  id: text,
  namespaceId: namespaceIdColumn,
  kind: oneOf(CONFIGURATION_KINDS),
  generation: integer,
  kubernetesNamespace: text,
  namespaceUid: text,
  objectName: text,
  objectUid: text,
  resourceVersion: text,
  contentSha256: text,
  createdAt: timestamp,
  updatedAt: timestamp,
});

export type ConfigurationRecord = RowOf<typeof configurationsTable.columns>;

/** Where a Configuration's document was written: the object as the API server stored it. */
export interface StoredObject {
  readonly kubernetesNamespace: string;
  readonly namespaceUid: string;
  readonly objectName: string;
  readonly objectUid: string;
  readonly resourceVersion: string;
}

const COLUMNS = configurationsTable.select();

/** A Namespace's Configurations by ID, and their pages. */
export const configurationRows = namespaceRows(configurationsTable);

export async function insertConfiguration(
  q: Queryable,
  input: StoredObject & {
    readonly id: string;
    readonly namespaceId: NamespaceId;
    readonly kind: ConfigurationKind;
    readonly contentSha256: string;
  },
): Promise<ConfigurationRecord> {
  const res = await q.query(
    `INSERT INTO configurations (id, namespace_id, kind, generation, kubernetes_namespace,
       namespace_uid, object_name, object_uid, resource_version, content_sha256)
     VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8, $9)
     RETURNING ${COLUMNS}`,
    [
      input.id,
      input.namespaceId,
      input.kind,
      input.kubernetesNamespace,
      input.namespaceUid,
      input.objectName,
      input.objectUid,
      input.resourceVersion,
      input.contentSha256,
    ],
  );
  return configurationsTable.decode(res.rows[0]);
}

/** Records generation + 1 with the new object version and digest. */
export async function recordConfigurationUpdate(
  q: Queryable,
  id: string,
  update: {
    readonly generation: number;
    readonly resourceVersion: string;
    readonly contentSha256: string;
  },
): Promise<ConfigurationRecord> {
  const res = await q.query(
    `UPDATE configurations
     SET generation = $2, resource_version = $3, content_sha256 = $4, updated_at = now()
     WHERE id = $1 AND generation = $2 - 1
     RETURNING ${COLUMNS}`,
    [id, update.generation, update.resourceVersion, update.contentSha256],
  );
  const row = res.rows[0];
  if (row === undefined) throw new Error(`configuration ${id} changed under its row lock`);
  return configurationsTable.decode(row);
}

export async function deleteConfigurationRow(q: Queryable, id: string): Promise<void> {
  await q.query("DELETE FROM configurations WHERE id = $1", [id]);
}
