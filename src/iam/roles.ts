/**
 * Roles: named sets of permissions (control-plane.md §3). A role's permissions are fixed when
 * it is created; to change what a role grants, create another and move the bindings, so that
 * a binding always means what it meant when it was made.
 */
import {
  branded,
  defineRow,
  defineTable,
  oneOf,
  text,
  timestamp,
  type RowOf,
} from "../store/columns.js";
import type { Queryable } from "../store/db.js";
import { announcePolicyChange } from "../store/policy-changes.js";
import { listPage, type Page, type PageOptions } from "../store/paging.js";
import { isRoleId, newIamId, type RoleId } from "../domain/iam/ids.js";
import { PERMISSION_ACTIONS, PERMISSION_KINDS, type Permission } from "../domain/iam/vocabulary.js";

export const rolesTable = defineTable("roles", {
  id: branded(isRoleId, "a role ID"),
  name: text,
  description: text,
  createdAt: timestamp,
});

type RoleRow = RowOf<typeof rolesTable.columns>;

/** A role with its permissions, sorted by kind then action (vocabulary order). */
export interface RoleRecord extends RoleRow {
  readonly permissions: readonly Permission[];
}

const COLUMNS = rolesTable.select();
const roleIdRow = defineRow("roles (id)", { id: rolesTable.columns.id });
const rolePermissionsRow = defineRow("role_permissions", {
  roleId: text,
  action: oneOf(PERMISSION_ACTIONS),
  kind: oneOf(PERMISSION_KINDS),
});

export interface NewRole {
  readonly name: string;
  readonly description?: string;
  readonly permissions: readonly Permission[];
}

export type CreateRoleResult =
  { readonly outcome: "created"; readonly role: RoleRecord } | { readonly outcome: "name_in_use" };

/** Inserts a role and its permissions (duplicates collapse) in the caller's transaction. */
export async function createRole(q: Queryable, input: NewRole): Promise<CreateRoleResult> {
  const res = await q.query(
    `INSERT INTO roles (id, name, description) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [newIamId("role"), input.name, input.description ?? ""],
  );
  const row = res.rows[0];
  if (row === undefined) return { outcome: "name_in_use" };
  const role = rolesTable.decode(row);
  await addRolePermissions(q, role.id, input.permissions);
  return { outcome: "created", role: { ...role, permissions: sortPermissions(input.permissions) } };
}

/** Adds permissions to a role; ones it already holds are left as they are. */
export async function addRolePermissions(
  q: Queryable,
  roleId: RoleId,
  permissions: readonly Permission[],
): Promise<void> {
  if (permissions.length === 0) return;
  await q.query(
    `INSERT INTO role_permissions (role_id, action, kind)
     SELECT $1, p.action, p.kind
     FROM unnest($2::text[], $3::text[]) AS p(action, kind)
     ON CONFLICT DO NOTHING`,
    [roleId, permissions.map((p) => p.action), permissions.map((p) => p.kind)],
  );
}

/** The role with `id`, with its permissions. */
export async function getRole(q: Queryable, id: RoleId): Promise<RoleRecord | undefined> {
  const res = await q.query(`SELECT ${COLUMNS} FROM roles WHERE id = $1`, [id]);
  const row = res.rows[0];
  if (row === undefined) return undefined;
  const [role] = await withPermissions(q, [rolesTable.decode(row)]);
  return role;
}

/** The role named `name`, with its permissions. */
export async function findRoleByName(q: Queryable, name: string): Promise<RoleRecord | undefined> {
  const res = await q.query(`SELECT id FROM roles WHERE name = $1`, [name]);
  const found = roleIdRow.decodeFirst(res.rows);
  return found === undefined ? undefined : getRole(q, found.id);
}

/** Roles, oldest first, each with its permissions. */
export async function listRoles(q: Queryable, opts: PageOptions): Promise<Page<RoleRecord>> {
  const page = await listPage(q, rolesTable, { where: "true", params: [] }, opts);
  return { items: await withPermissions(q, page.items), next: page.next };
}

export type DeleteRoleResult =
  | { readonly outcome: "deleted"; readonly role: RoleRecord }
  | { readonly outcome: "in_use" }
  | { readonly outcome: "not_found" };

/**
 * Deletes an unbound role (its permissions go with it). A bound role is `in_use`: unbinding
 * is an explicit act. The role row is locked first; a concurrent bind must lock it too (its
 * foreign-key check), so it either committed before the check below sees it or waits for us.
 */
export async function deleteRole(q: Queryable, id: RoleId): Promise<DeleteRoleResult> {
  const locked = await q.query("SELECT id FROM roles WHERE id = $1 FOR UPDATE", [id]);
  if (locked.rows.length === 0) return { outcome: "not_found" };
  const bound = await q.query("SELECT 1 FROM bindings WHERE role_id = $1 LIMIT 1", [id]);
  if (bound.rows.length > 0) return { outcome: "in_use" };
  const role = await getRole(q, id);
  if (role === undefined) return { outcome: "not_found" };
  await q.query("DELETE FROM roles WHERE id = $1", [id]);
  await announcePolicyChange(q);
  return { outcome: "deleted", role };
}

async function withPermissions(q: Queryable, roles: readonly RoleRow[]): Promise<RoleRecord[]> {
  if (roles.length === 0) return [];
  const res = await q.query(
    "SELECT role_id, action, kind FROM role_permissions WHERE role_id = ANY($1::text[])",
    [roles.map((r) => r.id)],
  );
  const rows = rolePermissionsRow.decodeAll(res.rows);
  return roles.map((role) => ({
    ...role,
    permissions: sortPermissions(
      rows.filter((r) => r.roleId === role.id).map(({ action, kind }) => ({ action, kind })),
    ),
  }));
}

/** Distinct permissions in vocabulary order (kind, then action). */
export function sortPermissions(permissions: readonly Permission[]): Permission[] {
  const rank = (p: Permission): number =>
    PERMISSION_KINDS.indexOf(p.kind) * PERMISSION_ACTIONS.length +
    PERMISSION_ACTIONS.indexOf(p.action);
  const unique = new Map(permissions.map((p) => [rank(p), p]));
  return [...unique.entries()].sort(([a], [b]) => a - b).map(([, p]) => p);
}
