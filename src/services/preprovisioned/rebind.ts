/**
 * Rebinding a recreated preprovisioned namespace, at worker startup (preprovisioned.md §1).
 *
 * The operator deleted the bound Kubernetes namespace, recreated it (`occ preprovisioned render
 * | kubectl apply -f -`) and set `preprovisionedNamespace.uid` to the new namespace's UID (`occ
 * preprovisioned values`); helm restarts the API and the worker with the new binding. The
 * worker's startup check has verified the live namespace against the NEW UID (every §3
 * requirement and the tenant RoleBindings). When the platform Namespace still records the old
 * UID, the worker places the new namespace with a full Compute pass against the new UID (seal,
 * quota, limit range and policies created, the OpenShell hook run) and, only when that pass is
 * ready, records the new UID — `ready` again under the same ID — with a
 * `namespaces.lifecycle.rebind` audit event, in one transaction. No database edit by hand.
 *
 * A binding whose UID is not the live namespace's never gets here (startup refuses it), and a
 * pass with the recorded UID refuses a namespace whose UID matches neither
 * (`KUBERNETES_OWNERSHIP_CONFLICT`). A `failed` Namespace is left to an administrator's retry.
 */
import type { Logger } from "pino";
import type { PreprovisionedBinding } from "../../domain/index.js";
import type { ComputeDriver } from "../../drivers/compute.js";
import { appendAuditEvent } from "../../store/audit-events.js";
import type { Db } from "../../store/db.js";
import { rebindNamespaceUid } from "../../store/namespace-rebind.js";
import { getNamespace, placementOf } from "../../store/namespaces.js";
import { RECONCILER_ACTOR } from "../../work/namespace-pass-request.js";
import { StartupRefusedError } from "./startup.js";
import { isLiveStatus } from "../../domain/placement/namespace-status.js";

/** What startup did: nothing to rebind, or the new UID recorded. */
export type RebindResult =
  | { readonly rebound: false }
  | { readonly rebound: true; readonly fromUid: string; readonly toUid: string };

/**
 * Rebinds the bound Namespace to the binding's UID when it records another one.
 *
 * @throws StartupRefusedError when the new namespace cannot be placed (the pass's code and
 *   reason); the recorded UID is then left as it was.
 */
export async function rebindPreprovisionedAtStartup(deps: {
  readonly db: Db;
  readonly compute: ComputeDriver;
  readonly binding: PreprovisionedBinding;
  readonly logger: Logger;
}): Promise<RebindResult> {
  const { db, compute, binding } = deps;
  const id = binding.namespaceId;
  const record = await getNamespace(db, id);
  const fromUid = record?.kubernetesUid ?? null;
  if (record === undefined || fromUid === null || fromUid === binding.uid) {
    return { rebound: false };
  }
  if (!isLiveStatus(record.status)) {
    deps.logger.warn(
      { namespaceId: id, status: record.status },
      "the binding names a new namespace UID, but the Namespace is not live; an administrator's retry rebinds it",
    );
    return { rebound: false };
  }
  const result = await compute.ensureNamespace({
    namespaceId: id,
    placement: placementOf(record),
    boundUid: binding.uid,
  });
  if (result.outcome !== "ready") {
    throw new StartupRefusedError(
      `The bound namespace was recreated (OCC recorded UID ${fromUid}, the binding names ${binding.uid}), but placing the new namespace did not succeed: ${result.code}: ${result.reason}`,
    );
  }
  const rebound = await db.transaction(async (tx) => {
    const after = await rebindNamespaceUid(tx, id, {
      namespace: result.namespaceName,
      fromUid,
      toUid: result.uid,
    });
    if (after === null) return false;
    await appendAuditEvent(tx, {
      kind: "lifecycle",
      actor: RECONCILER_ACTOR,
      action: "namespaces.lifecycle.rebind",
      resourceKind: "namespace",
      resourceId: id,
      outcome: "success",
      details: { to: "ready", namespace: result.namespaceName, fromUid, toUid: result.uid },
    });
    return true;
  });
  if (!rebound) return { rebound: false };
  deps.logger.info(
    { namespaceId: id, fromUid, toUid: result.uid },
    "rebound the preprovisioned Namespace to the recreated namespace",
  );
  return { rebound: true, fromUid, toUid: result.uid };
}
