/**
 * Bindings made by `auth.oidc.groupRoles` at a sign-in, marked so that the next sign-in can
 * remove exactly those its groups no longer call for, and never a binding an administrator
 * made by hand (control-plane.md §3; issue 42).
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import type { HeldGrant, RoleGrant } from "../domain/signin/group-roles.js";
import type { Queryable } from "../store/db.js";
import { announcePolicyChange } from "../store/policy-changes.js";
import { defineRow } from "../store/columns.js";
import { bindingsTable, createBinding } from "./bindings.js";
import { asIamId, type BindingId, type PrincipalId, type RoleId } from "../domain/iam/ids.js";

const heldRow = defineRow("group_bindings (held)", {
  id: bindingsTable.columns.id,
  roleId: bindingsTable.columns.roleId,
  namespaceId: bindingsTable.columns.namespaceId,
});

/** The group-derived bindings `principalId` holds, locked until the caller's transaction ends. */
export async function heldGroupGrants(
  q: Queryable,
  principalId: PrincipalId,
): Promise<readonly HeldGrant[]> {
  const res = await q.query(
    `SELECT b.id, b.role_id, b.namespace_id FROM group_bindings g JOIN bindings b ON b.id = g.binding_id
     WHERE g.principal_id = $1 ORDER BY b.created_at, b.id FOR UPDATE OF g`,
    [principalId],
  );
  return heldRow
    .decodeAll(res.rows)
    .map((r) => ({ bindingId: r.id, roleId: r.roleId, namespaceId: r.namespaceId }));
}

export type GroupGrantOutcome = "bound" | "already_bound" | "missing_role" | "missing_namespace";

/**
 * Binds one group-derived grant and marks it. A binding the principal already holds (made by
 * hand) is left as it is and not marked, so it stays when the group is left.
 */
export async function addGroupGrant(
  q: Queryable,
  principalId: PrincipalId,
  grant: RoleGrant & { readonly roleId: RoleId; readonly namespaceId: NamespaceId | null },
): Promise<{ readonly outcome: GroupGrantOutcome; readonly bindingId?: BindingId }> {
  const result = await createBinding(q, { principalId, ...grant });
  if (result.outcome === "duplicate") return { outcome: "already_bound" };
  if (result.outcome === "missing") {
    if (result.what === "principal") throw new Error("group grant for a missing principal");
    return { outcome: result.what === "role" ? "missing_role" : "missing_namespace" };
  }
  await q.query("INSERT INTO group_bindings (binding_id, principal_id) VALUES ($1, $2)", [
    result.binding.id,
    principalId,
  ]);
  await announcePolicyChange(q);
  return { outcome: "bound", bindingId: result.binding.id };
}

/** Removes group-derived bindings (their marks go with them). */
export async function removeGroupGrants(q: Queryable, held: readonly HeldGrant[]): Promise<void> {
  if (held.length === 0) return;
  const ids = held.map((h) => asIamId("binding", h.bindingId));
  await q.query(
    "DELETE FROM bindings WHERE id = ANY($1::text[]) AND id IN (SELECT binding_id FROM group_bindings)",
    [ids],
  );
  await announcePolicyChange(q);
}
