/**
 * An administrator's retry of a platform Namespace (lifecycle.md §4): the explicit way back for
 * a selection refused before it was bound (`failed`) and for a bound Namespace whose cause OCC
 * must not repair by itself (`degraded`, e.g. a vanished managed namespace). Order:
 *
 * 1. authorize `installation:administer` — before looking the Namespace up, so a caller who
 *    may not retry learns nothing about it;
 * 2. in one transaction: lock the row (404 when there is none or it is tombstoned), authorize
 *    again under the lock; refuse anything but `failed` or `degraded` (409);
 * 3. move it to `provisioning` with `retry_requested_at` set, requeue its placement item
 *    `namespace:<id>:ready` with the caller as the frozen actor (re-authorized again before
 *    the pass runs: a revoked grant stays failed), and append the audit event, which carries
 *    the recorded UID and the one the last pass observed (`uidChanged` when they differ).
 *
 * The pass then re-runs every check of a first placement under the same ID.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import { requeueEnsureWork } from "../../work/namespace-pass-request.js";
import { namespaceWorkSubject } from "../../work/lanes.js";
import { ensureWorkKey } from "../../work/namespace-work.js";
import { retryNamespace } from "../../store/namespace-lifecycle.js";
import type { NamespaceRecord } from "../../store/namespaces.js";
import { recordMutation, recordingDenials, requirePermission } from "../authorization.js";
import type { AuditSubject, Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";
import type { NamespaceServiceDeps } from "./deps.js";

const ADMINISTER = { permission: { action: "administer", kind: "installation" } } as const;

/** Retries a Namespace as described in the module comment; throws `ServiceError` on refusal. */
export async function retryNamespacePlacement(
  deps: NamespaceServiceDeps,
  caller: Caller,
  id: NamespaceId,
): Promise<NamespaceRecord> {
  const subject: AuditSubject & { readonly resourceId: string } = {
    action: "namespaces.retry",
    resourceKind: "namespace",
    resourceId: id,
  };
  return recordingDenials(deps.db, caller, async () => {
    await requirePermission(deps.db, caller, ADMINISTER, subject);
    return deps.db.transaction(async (tx) => {
      const retried = await retryNamespace(tx, id);
      if (retried.outcome === "not_found")
        throw new ServiceError("NOT_FOUND", "No such Namespace.");
      const grant = await requirePermission(tx, caller, ADMINISTER, subject);
      if (retried.outcome === "not_retryable") {
        throw new ServiceError(
          "RESOURCE_CONFLICT",
          `Only a failed or degraded Namespace can be retried; ${id} is ${retried.namespace.status}.`,
        );
      }
      const requeued = await requeueEnsureWork(tx, deps.queue, {
        key: ensureWorkKey(id),
        subject: namespaceWorkSubject(id),
        actor: caller.principalId,
      });
      // The recorded UID is not a guard for the retried pass (lifecycle.md §4): a namespace
      // recreated under the same name is re-verified and bound as it is now. Both UIDs are
      // kept here, so the audit trail shows which namespace the administrator accepted.
      const { kubernetesUid: recordedUid, observedKubernetesUid: observedUid } = retried.namespace;
      await recordMutation(tx, caller, subject, grant, {
        from: retried.from,
        ...(recordedUid !== null ? { recordedUid } : {}),
        ...(observedUid !== null ? { observedUid } : {}),
        uidChanged: recordedUid !== null && observedUid !== null && recordedUid !== observedUid,
        requeued: requeued !== null,
      });
      return retried.namespace;
    });
  });
}
