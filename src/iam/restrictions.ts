/**
 * Restrictions: rows that deny every request they match, whatever the bindings allow
 * (control-plane.md §3). Each null column matches anything; at least one is set, which the
 * database enforces, so no single restriction denies everything to everyone.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { isPreprovisionedNamespaceId } from "../domain/placement/ids.js";
import {
  bool,
  branded,
  defineRow,
  defineTable,
  nullable,
  oneOf,
  text,
  timestamp,
} from "../store/columns.js";
import type { RowOf } from "../store/columns.js";
import type { Queryable } from "../store/db.js";
import { announcePolicyChange } from "../store/policy-changes.js";
import { liveNamespaceLockedPart } from "../store/namespace-reads.js";
import { listPage, type Page, type PageOptions } from "../store/paging.js";
import { isPrincipalId, isRestrictionId, newIamId } from "../domain/iam/ids.js";
import type { PrincipalId, RestrictionId } from "../domain/iam/ids.js";
import {
  PERMISSION_ACTIONS,
  PERMISSION_KINDS,
  type PermissionAction,
  type PermissionKind,
} from "../domain/iam/vocabulary.js";

export const restrictionsTable = defineTable("restrictions", {
  id: branded(isRestrictionId, "a restriction ID"),
  principalId: nullable(branded(isPrincipalId, "a principal ID")),
  namespaceId: nullable(branded(isPreprovisionedNamespaceId, "a Namespace ID")),
  action: nullable(oneOf(PERMISSION_ACTIONS)),
  kind: nullable(oneOf(PERMISSION_KINDS)),
  description: text,
  createdAt: timestamp,
});

export type RestrictionRecord = RowOf<typeof restrictionsTable.columns>;

const COLUMNS = restrictionsTable.select();

const restrictionChecks = defineRow("restrictions (checks)", { principal: bool, namespace: bool });

/** What a restriction matches; `null` matches anything. At least one must be set. */
export interface NewRestriction {
  readonly principalId: PrincipalId | null;
  readonly namespaceId: NamespaceId | null;
  readonly action: PermissionAction | null;
  readonly kind: PermissionKind | null;
  readonly description?: string;
}

export type CreateRestrictionResult =
  | { readonly outcome: "created"; readonly restriction: RestrictionRecord }
  | { readonly outcome: "unbounded" }
  | { readonly outcome: "missing"; readonly what: "principal" | "namespace" };

/**
 * Inserts a restriction after checking that a named principal is live and a named Namespace is
 * not tombstoned (share-locked, as for bindings, so a tombstone cannot race the insert).
 */
export async function createRestriction(
  q: Queryable,
  input: NewRestriction,
): Promise<CreateRestrictionResult> {
  const set = [input.principalId, input.namespaceId, input.action, input.kind];
  if (set.every((v) => v === null)) return { outcome: "unbounded" };
  const checks = await q.query(
    `SELECT ($1::text IS NULL OR EXISTS (SELECT 1 FROM principals
               WHERE id = $1::text AND deleted_at IS NULL)) AS principal,
            ($2::text IS NULL OR ${liveNamespaceLockedPart("$2::text")}) AS namespace`,
    [input.principalId, input.namespaceId],
  );
  const found = restrictionChecks.decodeFirst(checks.rows);
  if (found?.principal !== true) return { outcome: "missing", what: "principal" };
  if (!found.namespace) return { outcome: "missing", what: "namespace" };
  const res = await q.query(
    `INSERT INTO restrictions (id, principal_id, namespace_id, action, kind, description)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [newIamId("restriction"), ...set, input.description ?? ""],
  );
  await announcePolicyChange(q);
  return { outcome: "created", restriction: restrictionsTable.decode(res.rows[0]) };
}

export function listRestrictions(
  q: Queryable,
  opts: PageOptions,
): Promise<Page<RestrictionRecord>> {
  return listPage(q, restrictionsTable, { where: "true", params: [] }, opts);
}

/** Removes a restriction; `undefined` when there was none. */
export async function deleteRestriction(
  q: Queryable,
  id: RestrictionId,
): Promise<RestrictionRecord | undefined> {
  const res = await q.query(`DELETE FROM restrictions WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
  return restrictionsTable.decodeFirst(res.rows);
}
