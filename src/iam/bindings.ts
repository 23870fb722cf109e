/**
 * Bindings: a principal holds a role Installation-wide (`namespaceId` null) or in one
 * Namespace (control-plane.md §3). Which permissions count at which scope is the authorizer's
 * rule, not this module's: a role holding `namespace:create` may be bound to a Namespace, where
 * that permission simply does not apply.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { isPreprovisionedNamespaceId } from "../domain/placement/ids.js";
import {
  bool,
  branded,
  defineRow,
  defineTable,
  nullable,
  timestamp,
  type RowOf,
} from "../store/columns.js";
import type { Queryable, SqlParam } from "../store/db.js";
import { rowById } from "../store/lookup.js";
import { liveNamespaceLockedPart } from "../store/namespace-reads.js";
import { listPage, type Page, type PageOptions } from "../store/paging.js";
import {
  isBindingId,
  isPrincipalId,
  isRoleId,
  newIamId,
  type BindingId,
  type PrincipalId,
  type RoleId,
} from "../domain/iam/ids.js";
import { announcePolicyChange } from "../store/policy-changes.js";

export const bindingsTable = defineTable("bindings", {
  id: branded(isBindingId, "a binding ID"),
  principalId: branded(isPrincipalId, "a principal ID"),
  roleId: branded(isRoleId, "a role ID"),
  namespaceId: nullable(branded(isPreprovisionedNamespaceId, "a Namespace ID")),
  createdAt: timestamp,
});

export type BindingRecord = RowOf<typeof bindingsTable.columns>;

const COLUMNS = bindingsTable.select();

export interface NewBinding {
  readonly principalId: PrincipalId;
  readonly roleId: RoleId;
  /** `null` for an Installation-wide binding. */
  readonly namespaceId: NamespaceId | null;
}

export type CreateBindingResult =
  | { readonly outcome: "created"; readonly binding: BindingRecord }
  | { readonly outcome: "duplicate" }
  | { readonly outcome: "missing"; readonly what: "principal" | "role" | "namespace" };

const bindingChecks = defineRow("bindings (checks)", {
  principal: bool,
  role: bool,
  namespace: bool,
});

/**
 * Binds, after checking that the principal is live, the role exists and the Namespace (if
 * any) is not tombstoned. The role and Namespace rows are share-locked until the caller's
 * transaction ends, so neither a role deletion nor a tombstone (which removes the Namespace's
 * bindings) can slip between the check and the insert.
 */
export async function createBinding(q: Queryable, input: NewBinding): Promise<CreateBindingResult> {
  const checks = await q.query(
    `SELECT EXISTS (SELECT 1 FROM principals WHERE id = $1 AND deleted_at IS NULL) AS principal,
            EXISTS (SELECT 1 FROM (SELECT id FROM roles WHERE id = $2 FOR SHARE) r) AS role,
            ($3::text IS NULL OR ${liveNamespaceLockedPart("$3::text")}) AS namespace`,
    [input.principalId, input.roleId, input.namespaceId],
  );
  const found = bindingChecks.decodeFirst(checks.rows);
  if (found?.principal !== true) return { outcome: "missing", what: "principal" };
  if (!found.role) return { outcome: "missing", what: "role" };
  if (!found.namespace) return { outcome: "missing", what: "namespace" };
  const res = await q.query(
    `INSERT INTO bindings (id, principal_id, role_id, namespace_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [newIamId("binding"), input.principalId, input.roleId, input.namespaceId],
  );
  const binding = bindingsTable.decodeFirst(res.rows);
  return binding === undefined ? { outcome: "duplicate" } : { outcome: "created", binding };
}

export function getBinding(q: Queryable, id: BindingId): Promise<BindingRecord | undefined> {
  return rowById(q, bindingsTable, id);
}

/** Narrows a listing; absent fields match everything. */
export interface BindingFilter {
  readonly principalId?: PrincipalId | undefined;
  readonly roleId?: RoleId | undefined;
  readonly namespaceId?: NamespaceId | undefined;
}

export function listBindings(
  q: Queryable,
  filter: BindingFilter,
  opts: PageOptions,
): Promise<Page<BindingRecord>> {
  const params: SqlParam[] = [
    filter.principalId ?? null,
    filter.roleId ?? null,
    filter.namespaceId ?? null,
  ];
  const where = `($1::text IS NULL OR principal_id = $1::text)
    AND ($2::text IS NULL OR role_id = $2::text)
    AND ($3::text IS NULL OR namespace_id = $3::text)`;
  return listPage(q, bindingsTable, { where, params }, opts);
}

/** Removes a binding (announced to the policy caches); `undefined` when there was none. */
export async function deleteBinding(
  q: Queryable,
  id: BindingId,
): Promise<BindingRecord | undefined> {
  const res = await q.query(`DELETE FROM bindings WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
  await announcePolicyChange(q);
  return bindingsTable.decodeFirst(res.rows);
}
