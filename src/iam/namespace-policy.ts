/**
 * The IAM side of a Namespace's tombstone: the bindings and restrictions scoped to it go with
 * it (control-plane.md §5). The worker's namespace record composes this into the teardown's
 * settle transaction, after the store's tombstone applied, so a tombstone never outlives its
 * policy or vice versa (src/store cannot import src/iam; the caller joins the two).
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import type { Queryable } from "../store/db.js";
import { announcePolicyChange } from "../store/policy-changes.js";

/** Deletes the Namespace's bindings and restrictions in `q`'s transaction, and announces it. */
export async function removeNamespacePolicy(q: Queryable, id: NamespaceId): Promise<void> {
  await q.query("DELETE FROM bindings WHERE namespace_id = $1", [id]);
  await q.query("DELETE FROM restrictions WHERE namespace_id = $1", [id]);
  await announcePolicyChange(q);
}
