/**
 * The restriction use cases (control-plane.md §2), each an administered mutation: create (400
 * when it names nothing to match; 404 when its principal or Namespace is missing) and delete.
 */
import {
  createRestriction,
  deleteRestriction,
  type RestrictionRecord,
} from "../../iam/restrictions.js";
import type { RestrictionId } from "../../domain/iam/ids.js";
import type { Queryable } from "../../store/db.js";
import { ServiceError } from "../errors.js";
import { administeredCreate, removedOr404, type Mutation } from "./administer.js";

/** `POST /restrictions`: 400 when it names nothing to match, 404 when what it names is missing. */
export const createRestrictionAsAdministrator = administeredCreate(
  { action: "restrictions.create", resourceKind: "restriction" },
  createRestriction,
  (result) => {
    if (result.outcome === "unbounded") {
      throw new ServiceError(
        "INVALID_REQUEST",
        "A restriction must name at least one of principalId, namespaceId, action, kind.",
      );
    }
    if (result.outcome === "missing")
      throw new ServiceError("NOT_FOUND", `No such ${result.what}.`);
    const r = result.restriction;
    return {
      result: r,
      resourceId: r.id,
      details: {
        principalId: r.principalId,
        namespaceId: r.namespaceId,
        action: r.action,
        kind: r.kind,
      },
    };
  },
);

/** The delete step of `DELETE /restrictions/:id`. */
export async function removeRestriction(
  tx: Queryable,
  id: RestrictionId,
): Promise<Mutation<RestrictionRecord>> {
  return removedOr404(await deleteRestriction(tx, id), id, "restriction");
}

/** The read use case of `/restrictions`. */
export { listRestrictions } from "../../iam/restrictions.js";
