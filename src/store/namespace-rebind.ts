/**
 * Rebinding the preprovisioned Namespace to a recreated Kubernetes namespace (preprovisioned.md
 * §1; migration 0008's hook): the operator deleted and recreated the bound namespace and changed
 * `preprovisionedNamespace.uid`; the worker verified the new namespace against the new UID and
 * placed it (a full Compute pass). This records the new UID and the Namespace is `ready` again
 * under the same ID — in the caller's transaction, with the audit event.
 *
 * The recorded UID is written once except while the status is `provisioning` or `degraded`
 * (0008), so a `ready` Namespace first becomes `degraded` (`KUBERNETES_NAMESPACE_REPLACED`),
 * then takes the new UID and becomes `ready`. Each statement is guarded by the state it expects
 * (the recorded UID included): a Namespace that moved on meanwhile is left as it is.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import type { Queryable } from "./db.js";
import { namespacesTable, type NamespaceRecord } from "./namespaces.js";

const COLUMNS = namespacesTable.select();

/** What the rebind replaces: the recorded UID and the one the worker verified. */
export interface Rebind {
  readonly namespace: string;
  readonly fromUid: string;
  readonly toUid: string;
}

/**
 * `ready | degraded | provisioning` with `fromUid` recorded → `ready` with `toUid`. Returns
 * the record as it is now, or `null` when the guard did not hold (nothing changed).
 */
export async function rebindNamespaceUid(
  q: Queryable,
  id: NamespaceId,
  rebind: Rebind,
): Promise<NamespaceRecord | null> {
  const params = [id, rebind.fromUid, rebind.namespace];
  const guard = `id = $1 AND kubernetes_uid = $2 AND kubernetes_namespace = $3
    AND deleted_at IS NULL`;
  await q.query(
    `UPDATE namespaces SET status = 'degraded', status_code = 'KUBERNETES_NAMESPACE_REPLACED',
       status_reason = 'the bound namespace was recreated; rebinding to its new UID',
       status_since = now(), updated_at = now()
     WHERE ${guard} AND status = 'ready'`,
    params,
  );
  const res = await q.query(
    `UPDATE namespaces SET status = 'ready', kubernetes_uid = $4::text,
       observed_kubernetes_uid = $4::text, status_code = NULL, status_reason = NULL,
       status_since = NULL, last_reconciled_at = now(), updated_at = now()
     WHERE ${guard} AND status IN ('degraded', 'provisioning')
     RETURNING ${COLUMNS}`,
    [...params, rebind.toUid],
  );
  const row = res.rows[0];
  return row === undefined ? null : namespacesTable.decode(row);
}
