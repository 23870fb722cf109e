/** A migrated PGlite database and small fixtures for the IAM unit tests. */
import { createBinding } from "../../../src/iam/bindings.js";
import type { PrincipalId, RoleId } from "../../../src/domain/iam/ids.js";
import { createPrincipal } from "../../../src/iam/principals.js";
import { createRole } from "../../../src/iam/roles.js";
import type { Permission } from "../../../src/domain/iam/vocabulary.js";
import type { NamespaceId } from "../../../src/domain/placement/ids.js";
import { newNamespaceId } from "../../../src/domain/placement/ids.js";
import type { Db } from "../../../src/store/db.js";
import { insertNamespace } from "../../../src/store/namespaces.js";

export async function principal(db: Db, name: string): Promise<PrincipalId> {
  const r = await createPrincipal(db, { kind: "user", name });
  if (r.outcome !== "created") throw new Error(`principal ${name}: ${r.outcome}`);
  return r.principal.id;
}

export async function role(db: Db, name: string, permissions: Permission[]): Promise<RoleId> {
  const r = await createRole(db, { name, permissions });
  if (r.outcome !== "created") throw new Error(`role ${name}: ${r.outcome}`);
  return r.role.id;
}

export async function bind(
  db: Db,
  principalId: PrincipalId,
  roleId: RoleId,
  namespaceId: NamespaceId | null = null,
): Promise<void> {
  const r = await createBinding(db, { principalId, roleId, namespaceId });
  if (r.outcome !== "created") throw new Error(`binding: ${r.outcome}`);
}

export async function namespace(db: Db, name: string): Promise<NamespaceId> {
  const id = newNamespaceId();
  const r = await insertNamespace(db, { id, name, placement: { mode: "managed" } });
  if (r.outcome !== "inserted") throw new Error(`namespace ${name}: ${r.outcome}`);
  return id;
}
