/**
 * The authorizer (control-plane.md §3): decides one request against policy read from `q` at
 * that moment, so a new binding or a new restriction takes effect on the very next request, and
 * the worker's re-authorization of a frozen actor sees current policy. (The API process keeps
 * allowed decisions in its policy cache, dropped on every announced change: policy-cache.ts.)
 *
 * A request is allowed when all hold:
 * 1. the principal exists and is not deleted;
 * 2. some binding of the principal holds a role with the permission, and the binding is
 *    Installation-wide, or — for permissions not in `INSTALLATION_ONLY_PERMISSIONS` — scoped
 *    to the Namespace the request is about;
 * 3. no restriction matches (principal, Namespace, action, kind; null columns match anything,
 *    and a Namespace-scoped restriction never matches a request about no Namespace).
 *
 * Errors reading policy propagate: callers must treat them as a denial (fail closed) and
 * answer 503, never allow.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import type { Queryable, SqlCondition } from "../store/db.js";
import { liveNamespaceIdsWhere } from "../store/namespace-reads.js";
import {
  isRestrictionId,
  type BindingId,
  type PrincipalId,
  type RestrictionId,
  type RoleId,
} from "../domain/iam/ids.js";
import { bool, branded, defineRow, nullable, text } from "../store/columns.js";
import { bindingsTable } from "./bindings.js";
import { grantMatches, principalLive, restrictionMatches, type Over } from "./decision-rules.js";
import { isInstallationOnly, type Permission } from "../domain/iam/vocabulary.js";

/** What is asked: a permission, and the Namespace it is about (absent for collections). */
export interface AuthorizationRequest {
  readonly permission: Permission;
  readonly namespaceId?: NamespaceId | undefined;
}

/** Why a request was denied: stable codes for audit details and the worker's failure codes. */
export const DENIAL_REASONS = ["principal_missing", "no_grant", "restricted"] as const;
export type DenialReason = (typeof DENIAL_REASONS)[number];

/** A decision, with the evidence that decided it (for audit details). */
export type Decision =
  | {
      readonly allowed: true;
      readonly bindingId: BindingId;
      readonly roleId: RoleId;
      readonly scope: "installation" | "namespace";
    }
  | {
      readonly allowed: false;
      readonly reason: DenialReason;
      readonly restrictionId?: RestrictionId;
    };

/** The row of {@link authorize}'s statement. */
const decisionRow = defineRow("authorization decision", {
  principalLive: bool,
  bindingId: nullable(bindingsTable.columns.id),
  roleId: nullable(bindingsTable.columns.roleId),
  bindingNamespace: nullable(text),
  restrictionId: nullable(branded(isRestrictionId, "a restriction ID")),
});

/** The parameters of {@link authorize}'s statement. */
const PARAMS: Over = {
  principal: "$1",
  action: "$2",
  kind: "$3",
  ns: "$4::text",
  installationOnly: "$5::boolean",
};

/** Decides one request in one statement (see the module comment for the rules). */
export async function authorize(
  q: Queryable,
  principalId: PrincipalId,
  request: AuthorizationRequest,
): Promise<Decision> {
  const { action, kind } = request.permission;
  const res = await q.query(
    `SELECT ${principalLive(PARAMS)} AS principal_live,
            g.id AS binding_id, g.role_id, g.namespace_id AS binding_namespace,
            (SELECT r.id FROM restrictions r WHERE ${restrictionMatches(PARAMS)}
             ORDER BY r.created_at, r.id LIMIT 1) AS restriction_id
     FROM (SELECT 1) AS one
     LEFT JOIN LATERAL (
       SELECT b.id, b.role_id, b.namespace_id FROM bindings b
       JOIN role_permissions rp ON rp.role_id = b.role_id
       WHERE ${grantMatches(PARAMS)}
       ORDER BY (b.namespace_id IS NULL) DESC, b.created_at, b.id LIMIT 1
     ) AS g ON true`,
    [
      principalId,
      action,
      kind,
      request.namespaceId ?? null,
      isInstallationOnly(request.permission),
    ],
  );
  const row = decisionRow.decodeFirst(res.rows);
  if (row === undefined) throw new Error("authorize: the decision query returned no row");
  if (!row.principalLive) return { allowed: false, reason: "principal_missing" };
  if (row.restrictionId !== null) {
    return { allowed: false, reason: "restricted", restrictionId: row.restrictionId };
  }
  if (row.bindingId === null || row.roleId === null) {
    return { allowed: false, reason: "no_grant" };
  }
  return {
    allowed: true,
    bindingId: row.bindingId,
    roleId: row.roleId,
    scope: row.bindingNamespace === null ? "installation" : "namespace",
  };
}

/** The expressions of {@link authorizedNamespaceIds}' statement: each listed Namespace `n`. */
const LISTED: Over = { ...PARAMS, ns: "n.id", installationOnly: "$4::boolean" };

/**
 * The live Namespaces on which `principalId` holds `permission`, by the same rules as
 * {@link authorize} applied to each Namespace (a filtered listing: never a 403). Empty when
 * the principal is deleted.
 */
export async function authorizedNamespaceIds(
  q: Queryable,
  principalId: PrincipalId,
  permission: Permission,
): Promise<NamespaceId[]> {
  return liveNamespaceIdsWhere(q, authorizedNamespaceFilter(principalId, permission));
}

/**
 * {@link authorizedNamespaceIds}' condition on a Namespace row aliased `n`, with its parameters
 * ($1–$4), for a statement that filters as it reads: a page of a listing then costs its page,
 * not a pass over every Namespace of the Installation.
 */
export function authorizedNamespaceFilter(
  principalId: PrincipalId,
  permission: Permission,
): SqlCondition {
  return {
    // COALESCE keeps each EXISTS a per-row check instead of a semi-join: the planner then
    // walks the listing's (created_at, id) index and stops at the page, where a semi-join's
    // low row estimate made it read and sort every Namespace for each page.
    sql: `${principalLive(LISTED)}
       AND COALESCE(EXISTS (SELECT 1 FROM bindings b JOIN role_permissions rp ON rp.role_id = b.role_id
                   WHERE ${grantMatches(LISTED)}), false)
       AND NOT COALESCE(EXISTS (SELECT 1 FROM restrictions r WHERE ${restrictionMatches(LISTED)}), false)`,
    params: [principalId, permission.action, permission.kind, isInstallationOnly(permission)],
  };
}
