/**
 * The worker's writes to a platform Namespace (control-plane.md §5 table): the result of an
 * ensure pass or a teardown pass, the recorded binding (name and UID), and the tombstone.
 *
 * Each write is guarded by the state the work expects (`provisioning` for ensure, `deleting`
 * for teardown), in the same statement, so a result computed against a Namespace that has
 * since moved on changes nothing and comes back as `superseded`. Callers run it in the same
 * transaction as the fenced work-item transition and the audit event.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { sanitizeReason } from "../domain/input/reason.js";
import { StatementParams, type GatedPart } from "./composed.js";
import type { Queryable } from "./db.js";
import type { StatusReasonInput } from "../domain/placement/namespace-status.js";
import { getNamespace, namespacesTable, type NamespaceRecord } from "./namespaces.js";

const COLUMNS = namespacesTable.select();

/** The Kubernetes namespace a tenant is bound to, as first observed by the worker. */
export interface KubernetesBinding {
  readonly namespace: string;
  readonly uid: string;
}

/**
 * What an ensure pass leaves behind:
 * - `ready`: provisioning → ready, reason cleared, binding recorded;
 * - `provisioning`: still provisioning (pending, or a retryable failure that will be retried)
 *   with the reason shown; a binding observed on the way may be recorded already;
 * - `failed`: provisioning → failed with the reason (permanent, attempts or deadline spent,
 *   or the actor's authorization is gone).
 */
export type ProvisioningOutcome = (
  | { readonly to: "ready"; readonly binding: KubernetesBinding }
  | {
      readonly to: "provisioning";
      readonly reason: StatusReasonInput;
      readonly binding?: KubernetesBinding;
    }
  | {
      readonly to: "failed";
      readonly reason: StatusReasonInput;
      readonly binding?: KubernetesBinding;
    }
) & {
  /**
   * The UID the pass saw (`null`: the namespace was absent); omitted when it was not read.
   * A ready outcome's binding UID is what it saw.
   */
  readonly observedUid?: string | null;
};

/**
 * What a teardown pass leaves behind: `tombstoned` (teardown complete: `deleted_at` set, its
 * existing-namespace claim released; its IAM policy removed by the caller, see below), or
 * still `deleting` with the reason it is not done — teardown never leaves `deleting`.
 */
export type TeardownOutcome =
  { readonly to: "tombstoned" } | { readonly to: "deleting"; readonly reason: StatusReasonInput };

export type ApplyOutcomeResult =
  | { readonly outcome: "applied"; readonly namespace: NamespaceRecord }
  | {
      readonly outcome: "superseded";
      /** The record as it is now (tombstones included), or undefined if there is none. */
      readonly current: NamespaceRecord | undefined;
    };

/** The reason columns over placeholders `code`, `reason`: `since` is kept while the code stays. */
function reasonSet(code: string, reason: string): string {
  return `status_code = ${code}::text, status_reason = ${reason}::text,
  status_since = CASE WHEN status_code IS NOT DISTINCT FROM ${code}::text THEN status_since ELSE now() END`;
}

const REASON_SET = reasonSet("$2", "$3");

function reasonParams(reason: StatusReasonInput): [string, string] {
  const message = sanitizeReason(reason.message);
  return [reason.code, message === "" ? reason.code : message];
}

/**
 * The UPDATE of an ensure pass over placeholders from `p` (see {@link applyProvisioningOutcome}
 * for what it writes); with `gate`, only when that CTE of a composed statement has a row.
 */
function provisioningUpdate(
  p: StatementParams,
  id: NamespaceId,
  outcome: ProvisioningOutcome,
  gate?: string,
): string {
  const binding = outcome.binding;
  const idP = p.add(id);
  const [code, reason] = outcome.to === "ready" ? [null, null] : reasonParams(outcome.reason);
  const codeP = p.add(code);
  const reasonP = p.add(reason);
  // The UID the pass saw (or null), and the namespace name it was seen under.
  const uidP = p.add(binding?.uid ?? null);
  const nameP = p.add(binding?.namespace ?? null);
  const observedP = p.add(outcome.observedUid !== undefined);
  const observedUidP = p.add(outcome.observedUid ?? null);
  const guard = `WHERE id = ${idP} AND status = 'provisioning' AND deleted_at IS NULL
    AND (${uidP}::text IS NULL OR kubernetes_uid IS NULL OR kubernetes_uid = ${uidP}::text
         OR retry_requested_at IS NOT NULL)${gate === undefined ? "" : ` AND EXISTS (SELECT 1 FROM ${gate})`}`;
  const stamp = `last_reconciled_at = now(), updated_at = now(),
    observed_kubernetes_uid = CASE WHEN ${observedP}::boolean THEN ${observedUidP}::text
                                   ELSE COALESCE(${uidP}::text, observed_kubernetes_uid) END`;
  // A binding seen on the way is recorded whatever the outcome (UID from the start, §5).
  const keepOrRecord = `kubernetes_namespace = COALESCE(${nameP}::text, kubernetes_namespace),
    kubernetes_uid = COALESCE(${uidP}::text, kubernetes_uid)`;
  let set: string;
  switch (outcome.to) {
    case "ready":
      // The reason placeholders are null here: ready clears the reason.
      set = `status = 'ready', status_code = ${codeP}::text, status_reason = ${reasonP}::text,
             status_since = NULL, ${keepOrRecord}, retry_requested_at = NULL`;
      break;
    case "provisioning":
      set = `${reasonSet(codeP, reasonP)}, ${keepOrRecord},
             retry_requested_at = CASE WHEN ${uidP}::text IS NULL THEN retry_requested_at END`;
      break;
    case "failed":
      set = `status = 'failed', ${reasonSet(codeP, reasonP)}, ${keepOrRecord}, retry_requested_at = NULL`;
      break;
  }
  return `UPDATE namespaces SET ${set}, ${stamp} ${guard}`;
}

/**
 * Whether {@link applyProvisioningOutcome} of `outcome` to `record` (as loaded at the start of
 * the pass) keeps the write-once binding: no UID, or the recorded one, or a pending retry. The
 * lane's lease lets no one else write the binding meanwhile, so this still holds at settle.
 */
export function keepsBinding(record: NamespaceRecord, outcome: ProvisioningOutcome): boolean {
  const uid = outcome.binding?.uid ?? null;
  return (
    uid === null ||
    record.kubernetesUid === null ||
    record.kubernetesUid === uid ||
    record.retryRequestedAt !== null
  );
}

/**
 * {@link applyProvisioningOutcome} as part of a composed statement (`composed.ts`): applied
 * only when the gate row exists (the pass's fenced queue move), in the same transaction.
 * Callers first check {@link keepsBinding}: a refused binding cannot throw from inside the
 * statement, so such an outcome must go through {@link applyProvisioningOutcome}.
 */
export function provisioningOutcomeGated(id: NamespaceId, outcome: ProvisioningOutcome): GatedPart {
  return (p, gate, name) => [
    { name: `${name}_namespace`, sql: `${provisioningUpdate(p, id, outcome, gate)} RETURNING id` },
  ];
}

/**
 * Applies an ensure pass to a `provisioning` Namespace, stamping `last_reconciled_at` and the
 * observed UID. The binding is written once: a UID other than the recorded one is accepted
 * only while an administrator's retry is pending (`retry_requested_at`, cleared by the first
 * outcome that records a binding, and by ready or failed); otherwise this throws — the domain
 * fails such a pass closed before it gets here, so reaching it is a bug, not an outcome.
 */
export async function applyProvisioningOutcome(
  q: Queryable,
  id: NamespaceId,
  outcome: ProvisioningOutcome,
): Promise<ApplyOutcomeResult> {
  const p = new StatementParams();
  const sql = `${provisioningUpdate(p, id, outcome)} RETURNING ${COLUMNS}`;
  const result = await settle(q, id, await q.query(sql, p.values));
  const uid = outcome.binding?.uid ?? null;
  if (
    result.outcome === "superseded" &&
    result.current?.status === "provisioning" &&
    result.current.deletedAt === null &&
    uid !== null
  ) {
    throw new Error(
      `namespace ${id}: binding is written once (recorded UID ${String(result.current.kubernetesUid)}, pass saw ${uid}) and no retry is pending`,
    );
  }
  return result;
}

/**
 * Applies a teardown pass to a `deleting` Namespace. The Namespace's IAM policy goes with its
 * tombstone (control-plane.md §5), but it is IAM's to delete: the caller runs
 * `removeNamespacePolicy` (src/iam) in the same transaction when this comes back `applied`.
 */
export async function applyTeardownOutcome(
  q: Queryable,
  id: NamespaceId,
  outcome: TeardownOutcome,
): Promise<ApplyOutcomeResult> {
  const guard = "WHERE id = $1 AND status = 'deleting' AND deleted_at IS NULL";
  if (outcome.to === "deleting") {
    const res = await q.query(
      `UPDATE namespaces SET ${REASON_SET}, updated_at = now() ${guard} RETURNING ${COLUMNS}`,
      [id, ...reasonParams(outcome.reason)],
    );
    return settle(q, id, res);
  }
  const res = await q.query(
    `UPDATE namespaces SET deleted_at = now(), status_code = NULL, status_reason = NULL,
       status_since = NULL, updated_at = now() ${guard} RETURNING ${COLUMNS}`,
    [id],
  );
  return settle(q, id, res);
}

async function settle(
  q: Queryable,
  id: NamespaceId,
  res: { readonly rows: readonly unknown[] },
): Promise<ApplyOutcomeResult> {
  const row = res.rows[0];
  if (row !== undefined) return { outcome: "applied", namespace: namespacesTable.decode(row) };
  return {
    outcome: "superseded",
    current: await getNamespace(q, id, { includeTombstoned: true }),
  };
}
