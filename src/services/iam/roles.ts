/**
 * The role use cases (control-plane.md §2), each an administered mutation: create (409 when
 * the name is taken) and delete (409 while a binding uses the role).
 */
import { createRole, deleteRole, type RoleRecord } from "../../iam/roles.js";
import type { RoleId } from "../../domain/iam/ids.js";
import type { Queryable } from "../../store/db.js";
import { requireNameFree, ServiceError } from "../errors.js";
import { administeredCreate, type Mutation } from "./administer.js";

/** `POST /roles`: 409 when the name is taken. */
export const createRoleAsAdministrator = administeredCreate(
  { action: "roles.create", resourceKind: "role" },
  createRole,
  (result) => {
    requireNameFree(result, "A role with this name already exists.");
    return { result: result.role, resourceId: result.role.id };
  },
);

/** The delete step of `DELETE /roles/:id`. */
export async function removeRole(tx: Queryable, id: RoleId): Promise<Mutation<RoleRecord>> {
  const result = await deleteRole(tx, id);
  if (result.outcome === "not_found") throw new ServiceError("NOT_FOUND", "No such role.");
  if (result.outcome === "in_use") {
    throw new ServiceError(
      "RESOURCE_CONFLICT",
      "The role is still bound; delete its bindings first.",
    );
  }
  return { result: result.role, resourceId: id };
}

/** The read use cases of `/roles`: the records as stored. */
export { getRole, listRoles } from "../../iam/roles.js";
