/**
 * Deleting a platform Namespace (control-plane.md §2). Order, and why:
 *
 * 1. authorize `namespace:delete` on the Namespace — before looking it up, so a caller who may
 *    not delete it cannot tell whether it exists;
 * 2. in one transaction, lock the row (404 if there is none or it is tombstoned) and authorize
 *    again under the lock, so a binding revoked meanwhile is honoured;
 * 3. already `deleting`: a no-op — unless its teardown failed permanently, in which case the
 *    teardown is requeued with the caller as its new actor;
 * 4. refuse while resources remain in it (409 `NAMESPACE_NOT_EMPTY`);
 * 5. move it to `deleting`, queue `namespace:<id>:deleted` and append the audit event, all in
 *    that transaction.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import { reopen } from "../../queue/enqueue.js";
import type { Queryable } from "../../store/db.js";
import type { JsonObject } from "../../store/columns.js";
import { getNamespace, markNamespaceDeleting } from "../../store/namespaces.js";
import type { NamespaceRecord } from "../../store/namespaces.js";
import { recordMutation, recordingDenials, requirePermission } from "../authorization.js";
import type { AuditSubject, Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";
import { teardownPermission } from "./permissions.js";
import { notEmptyMessage, remainingContents } from "./contents.js";
import type { NamespaceServiceDeps } from "./deps.js";
import { namespaceWorkSubject } from "../../work/lanes.js";
import { teardownWorkKey } from "../../work/namespace-work.js";
import { enqueueWork } from "../../work/work-config.js";

/** What the DELETE did: started teardown, requeued a failed one, or nothing (already on it). */
export type DeleteNamespaceChange = "marked" | "requeued" | "none";

export interface DeleteNamespaceResult {
  readonly namespace: NamespaceRecord;
  readonly change: DeleteNamespaceChange;
}

/** Deletes a Namespace as described in the module comment; throws `ServiceError` on refusal. */
export async function deleteNamespace(
  deps: NamespaceServiceDeps,
  caller: Caller,
  id: NamespaceId,
): Promise<DeleteNamespaceResult> {
  const subject: AuditSubject & { readonly resourceId: string } = {
    action: "namespaces.delete",
    resourceKind: "namespace",
    resourceId: id,
  };
  const request = teardownPermission(id);
  return recordingDenials(deps.db, caller, async () => {
    await requirePermission(deps.db, caller, request, subject);
    return deps.db.transaction(async (tx) => {
      const current = await getNamespace(tx, id, { forUpdate: true });
      if (current === undefined) throw new ServiceError("NOT_FOUND", "No such Namespace.");
      const grant = await requirePermission(tx, caller, request, subject);
      const audit = (details: JsonObject): Promise<void> =>
        recordMutation(tx, caller, subject, grant, details);

      if (current.status === "deleting") {
        const reopened = await reopen(deps.queue, tx, {
          key: teardownWorkKey(id),
          actor: caller.principalId,
        });
        if (reopened.outcome === "not_failed") return { namespace: current, change: "none" };
        if (reopened.outcome === "not_found") await enqueueTeardown(deps, tx, caller, id);
        await audit({ requeued: true });
        return { namespace: current, change: "requeued" };
      }

      const remaining = await remainingContents(tx, id, deps.contentChecks);
      if (remaining.length > 0)
        throw new ServiceError("NAMESPACE_NOT_EMPTY", notEmptyMessage(remaining));

      const marked = await markNamespaceDeleting(tx, id);
      if (marked.outcome !== "marked") {
        // The row is locked and was live and not deleting a moment ago in this transaction.
        throw new Error(`deleteNamespace: ${id} changed under its row lock (${marked.outcome})`);
      }
      await enqueueTeardown(deps, tx, caller, id);
      await audit({ previousStatus: current.status });
      return { namespace: marked.namespace, change: "marked" };
    });
  });
}

async function enqueueTeardown(
  deps: NamespaceServiceDeps,
  tx: Queryable,
  caller: Caller,
  id: NamespaceId,
): Promise<void> {
  await enqueueWork(deps.queue, tx, {
    kind: "namespace.teardown",
    subject: namespaceWorkSubject(id),
    key: teardownWorkKey(id),
    actor: caller.principalId,
  });
}
