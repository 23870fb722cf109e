/**
 * The principal use cases (control-plane.md §2), each an administered mutation: create (409
 * when the name is taken) and delete (never oneself; 404 when there is no such principal).
 */
import { createPrincipal, deletePrincipal, type PrincipalRecord } from "../../iam/principals.js";
import type { PrincipalId } from "../../domain/iam/ids.js";
import type { Queryable } from "../../store/db.js";
import type { Caller } from "../authorization.js";
import { requireNameFree, ServiceError } from "../errors.js";
import { administeredCreate, type Mutation } from "./administer.js";

/** `POST /principals`: 409 when the name is taken. */
export const createPrincipalAsAdministrator = administeredCreate(
  { action: "principals.create", resourceKind: "principal" },
  createPrincipal,
  (result) => {
    requireNameFree(result, "A principal with this name already exists.");
    return {
      result: result.principal,
      resourceId: result.principal.id,
      details: { kind: result.principal.kind },
    };
  },
);

/** The delete step of `DELETE /principals/:id`: a principal cannot delete itself. */
export async function removePrincipal(
  tx: Queryable,
  id: PrincipalId,
  caller: Caller,
): Promise<Mutation<PrincipalRecord>> {
  if (id === caller.principalId) {
    throw new ServiceError(
      "RESOURCE_CONFLICT",
      "A principal cannot delete itself; ask another administrator.",
    );
  }
  const gone = await deletePrincipal(tx, id);
  if (gone === undefined) throw new ServiceError("NOT_FOUND", "No such principal.");
  return { result: gone, resourceId: id };
}

/** The read use cases of `/principals`: the live records. */
export { getPrincipal, listPrincipals } from "../../iam/principals.js";
