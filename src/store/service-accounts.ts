/**
 * ServiceAccount records (drivers.md §3): `{id, name, credential?: {kind, secretRef}}` per
 * Namespace, the name unique in the Namespace. No Kubernetes object exists for them until an
 * Agent uses one; they block the deletion of their Namespace.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { defineTable, nullable, oneOf, text, timestamp, namespaceIdColumn } from "./columns.js";
import type { RowOf } from "./columns.js";
import type { Queryable } from "./db.js";
import { namespaceRows } from "./resource-paging.js";
import { CREDENTIAL_KINDS, type CredentialKind } from "../domain/tenant/vocabulary.js";

export const serviceAccountsTable = defineTable("service_accounts", {
  id: text,
  namespaceId: namespaceIdColumn,
  name: text,
  credentialKind: nullable(oneOf(CREDENTIAL_KINDS)),
  credentialSecretId: nullable(text),
  createdAt: timestamp,
});

export type ServiceAccountRecord = RowOf<typeof serviceAccountsTable.columns>;

const COLUMNS = serviceAccountsTable.select();

/** A Namespace's ServiceAccounts by ID, and their pages. */
export const serviceAccountRows = namespaceRows(serviceAccountsTable);

export interface NewServiceAccount {
  readonly id: string;
  readonly namespaceId: NamespaceId;
  readonly name: string;
  readonly credential: { readonly kind: CredentialKind; readonly secretId: string } | null;
}

/** Inserts; `name_in_use` when the Namespace already has one of that name. */
export async function insertServiceAccount(
  q: Queryable,
  input: NewServiceAccount,
): Promise<
  { outcome: "inserted"; serviceAccount: ServiceAccountRecord } | { outcome: "name_in_use" }
> {
  const res = await q.query(
    `INSERT INTO service_accounts (id, namespace_id, name, credential_kind, credential_secret_id)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT ON CONSTRAINT service_accounts_name_unique DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      input.id,
      input.namespaceId,
      input.name,
      input.credential?.kind ?? null,
      input.credential?.secretId ?? null,
    ],
  );
  const serviceAccount = serviceAccountsTable.decodeFirst(res.rows);
  return serviceAccount === undefined
    ? { outcome: "name_in_use" }
    : { outcome: "inserted", serviceAccount };
}

/** Deletes; false when there was no such row. */
export async function deleteServiceAccountRow(
  q: Queryable,
  namespaceId: NamespaceId,
  id: string,
): Promise<boolean> {
  const res = await q.query("DELETE FROM service_accounts WHERE namespace_id = $1 AND id = $2", [
    namespaceId,
    id,
  ]);
  return res.rowCount > 0;
}
