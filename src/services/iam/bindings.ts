/**
 * The binding use cases (control-plane.md §2), each an administered mutation: create (404
 * when the principal, role or Namespace is missing; 409 for a duplicate) and delete (404).
 */
import { createBinding, deleteBinding, type BindingRecord } from "../../iam/bindings.js";
import type { BindingId } from "../../domain/iam/ids.js";
import type { Queryable } from "../../store/db.js";
import { ServiceError } from "../errors.js";
import { administeredCreate, removedOr404, type Mutation } from "./administer.js";

/** `POST /bindings`: 404 when its principal, role or Namespace is missing, 409 for a duplicate. */
export const createBindingAsAdministrator = administeredCreate(
  { action: "bindings.create", resourceKind: "binding" },
  createBinding,
  (result) => {
    if (result.outcome === "missing") {
      throw new ServiceError("NOT_FOUND", `No such ${result.what}.`);
    }
    if (result.outcome === "duplicate") {
      throw new ServiceError("RESOURCE_CONFLICT", "This binding already exists.");
    }
    const b = result.binding;
    return {
      result: b,
      resourceId: b.id,
      details: { principalId: b.principalId, roleId: b.roleId, namespaceId: b.namespaceId },
    };
  },
);

/** The delete step of `DELETE /bindings/:id`. */
export async function removeBinding(
  tx: Queryable,
  id: BindingId,
): Promise<Mutation<BindingRecord>> {
  return removedOr404(await deleteBinding(tx, id), id, "binding");
}

/** The read use cases of `/bindings`: the records, optionally filtered. */
export { getBinding, listBindings, type BindingFilter } from "../../iam/bindings.js";
