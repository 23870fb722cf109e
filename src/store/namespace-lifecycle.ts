/**
 * Writes of the lifecycle after placement (lifecycle.md §2, §4): the verdict of a pass over a
 * bound Namespace (ready ⇄ degraded) and an administrator's retry (failed | degraded →
 * provisioning). Like `namespace-outcomes.ts`, each write is guarded by the state it expects in
 * the same statement, so a verdict computed against a Namespace that has since moved on changes
 * nothing (`superseded`).
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { sanitizeReason } from "../domain/input/reason.js";
import type { Queryable } from "./db.js";
import type { ApplyOutcomeResult } from "./namespace-outcomes.js";
import {
  type StatusReasonInput,
  isRetryableStatus,
  type RetryableStatus,
} from "../domain/placement/namespace-status.js";
import { getNamespace, namespacesTable, type NamespaceRecord } from "./namespaces.js";

const COLUMNS = namespacesTable.select();

/** The verdict of a pass over a `ready` or `degraded` Namespace. */
export type BoundOutcome = (
  { readonly to: "ready" } | { readonly to: "degraded"; readonly reason: StatusReasonInput }
) & {
  /** The UID the pass saw (`null`: the namespace was absent); omitted when it was not read. */
  readonly observedUid?: string | null;
};

/**
 * Applies a bound pass's verdict: `ready` (reason cleared) or `degraded` with its reason (the
 * `since` time kept while the code stays the same), stamping `last_reconciled_at` and the
 * observed UID. The recorded binding is never touched here.
 */
export async function applyBoundOutcome(
  q: Queryable,
  id: NamespaceId,
  outcome: BoundOutcome,
): Promise<ApplyOutcomeResult> {
  const reason =
    outcome.to === "degraded"
      ? [outcome.reason.code, sanitizeReason(outcome.reason.message) || outcome.reason.code]
      : [null, null];
  const res = await q.query(
    `UPDATE namespaces
     SET status = $2::text, status_code = $3::text, status_reason = $4::text,
         status_since = CASE WHEN $3::text IS NULL THEN NULL
                             WHEN status_code IS NOT DISTINCT FROM $3::text THEN status_since
                             ELSE now() END,
         observed_kubernetes_uid = CASE WHEN $5::boolean THEN $6::text
                                        ELSE observed_kubernetes_uid END,
         last_reconciled_at = now(), updated_at = now()
     WHERE id = $1 AND status IN ('ready', 'degraded') AND deleted_at IS NULL
     RETURNING ${COLUMNS}`,
    [id, outcome.to, ...reason, outcome.observedUid !== undefined, outcome.observedUid ?? null],
  );
  const row = res.rows[0];
  if (row !== undefined) return { outcome: "applied", namespace: namespacesTable.decode(row) };
  return { outcome: "superseded", current: await getNamespace(q, id, { includeTombstoned: true }) };
}

export type RetryNamespaceResult =
  | {
      readonly outcome: "retried";
      readonly from: RetryableStatus;
      readonly namespace: NamespaceRecord;
    }
  | { readonly outcome: "not_retryable"; readonly namespace: NamespaceRecord }
  | { readonly outcome: "not_found" };

/**
 * An administrator's retry (lifecycle.md §4): a `failed` or `degraded` Namespace goes back to
 * `provisioning` under the same ID, its reason cleared, with `retry_requested_at` set — the
 * consent for the next pass to place the namespace as it is now (re-verified like a first
 * placement: a vanished managed namespace is recreated, a recreated one bound under its new
 * UID). Any other state is `not_retryable` and nothing changes. The caller queues the work and
 * audits in the same transaction.
 */
export async function retryNamespace(q: Queryable, id: NamespaceId): Promise<RetryNamespaceResult> {
  const current = await getNamespace(q, id, { forUpdate: true });
  if (current === undefined) return { outcome: "not_found" };
  if (!isRetryableStatus(current.status)) {
    return { outcome: "not_retryable", namespace: current };
  }
  const res = await q.query(
    `UPDATE namespaces
     SET status = 'provisioning', status_code = NULL, status_reason = NULL, status_since = NULL,
         retry_requested_at = now(), updated_at = now()
     WHERE id = $1 AND status IN ('failed', 'degraded') AND deleted_at IS NULL
     RETURNING ${COLUMNS}`,
    [id],
  );
  return {
    outcome: "retried",
    from: current.status,
    namespace: namespacesTable.decode(res.rows[0]),
  };
}
