/**
 * Namespace work as a kind of the pass runner (`pass-runner.ts`): placement
 * (`namespace.ensure` by a person, on a `provisioning` Namespace), the system's reconcile of a
 * bound one (`namespace.ensure` by {@link RECONCILER_ACTOR}, on `ready` or `degraded`) and
 * teardown (`namespace.teardown`, on `deleting`) — lifecycle.md §1.
 *
 * - target: the Namespace of the lane, when it is in the state the work expects — read in the
 *   claim's own statement (`store/namespace-target.ts`), so a pass starts without a round trip;
 * - permissions: `namespacePassPermissions` (the rule the API checks too), decided in the
 *   claim's statement as well (`embeddedDecisions`), so re-authorization costs no round trip;
 *   the system's reconcile of a bound Namespace adopts nothing new and has no one to
 *   re-authorize;
 * - reconcile: the Compute Driver; a bound Namespace is passed as such, so drift the operator
 *   owns is reported rather than written back;
 * - record: `namespace-record.ts`.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import type { ComputeDriver, PassObserver } from "../drivers/compute.js";
import type { EventRecorder } from "../drivers/events.js";
import type { Claim, WorkItem, WorkQueue } from "../queue/index.js";
import { embeddedDecisions } from "../iam/embedded-decisions.js";
import {
  NAMESPACE_PASS_REQUESTS,
  namespacePassPermissions,
} from "../services/namespaces/permissions.js";
import type { Db } from "../store/db.js";
import { namespaceById } from "../store/namespace-target.js";
import { placementOf, type NamespaceRecord } from "../store/namespaces.js";
import { laneIdSql, namespaceIdOfSubject } from "../work/lanes.js";
import { RECONCILER_ACTOR } from "../work/namespace-pass-request.js";
import type { NamespaceWorkKind } from "../work/namespace-work.js";
import { recordNamespaceOutcome, type NamespaceVerdict, type Seen } from "./namespace-record.js";
import { namespaceOutcomeOf } from "./namespace-status-table.js";
import {
  runPass,
  type PassSummary,
  type TargetDeclaration,
  type WorkHandler,
} from "./pass-runner.js";
import { isBoundStatus } from "../domain/placement/namespace-status.js";

export interface NamespacePassDeps {
  readonly db: Db;
  readonly queue: WorkQueue<NamespaceWorkKind>;
  readonly compute: ComputeDriver;
  /**
   * Best effort: one Kubernetes Event on the tenant namespace for every change of status or
   * reason (into pending, degraded or failed, and back to ready). Never awaited for the
   * outcome, never required for success.
   */
  readonly events?: EventRecorder;
  /** Told the kind of every owned object a pass over a bound tenant wrote back (metrics). */
  readonly onRepaired?: (kind: string) => void;
}

const isBound = (record: NamespaceRecord): boolean => isBoundStatus(record.status);

/**
 * Whether the Namespace is in a state this work may act on: teardown needs `deleting`; the
 * placement item (a person's request) needs `provisioning`; the system's reconcile items need
 * a bound Namespace (`ready` or `degraded`) — lifecycle.md §1.
 */
function inScope(item: WorkItem<NamespaceWorkKind>, record: NamespaceRecord): boolean {
  if (item.kind === "namespace.teardown") return record.status === "deleting";
  return item.actor === RECONCILER_ACTOR ? isBound(record) : record.status === "provisioning";
}

/**
 * A pass's target, however it was read: the live Namespace of the lane `id`, in the state the
 * work expects; otherwise `null` (the work is superseded).
 */
function targetOf(
  item: WorkItem<NamespaceWorkKind>,
  id: NamespaceId,
  record: NamespaceRecord | undefined,
): NamespaceRecord | null {
  const live = record !== undefined && record.id === id && record.deletedAt === null;
  return live && inScope(item, record) ? record : null;
}

/** The Namespace of the claimed lane `c`. */
const NAMESPACE_OF_LANE = namespaceById(laneIdSql("namespace", "c.subject"));

/**
 * The re-authorization of the claimed item's frozen actor (`c.actor`), read beside its
 * Namespace: every request a Namespace pass can need, left undecided for the system's own work
 * (no one to re-authorize).
 */
const DECIDED_BESIDE = embeddedDecisions({
  principal: "c.actor",
  namespace: NAMESPACE_OF_LANE.id,
  requests: NAMESPACE_PASS_REQUESTS,
  as: "az_",
  unless: `c.actor = '${RECONCILER_ACTOR}'`,
});

/** The Namespace pass's target: the Namespace of its lane, in the state the work expects. */
const NAMESPACE_TARGET: TargetDeclaration<NamespaceWorkKind, NamespaceRecord> = {
  superseded: "the Namespace is no longer in the state this work expects",
  sql: NAMESPACE_OF_LANE.sql(DECIDED_BESIDE.sql),
  read(item, row) {
    const id = namespaceIdOfSubject(item.subject);
    const record = id === null ? null : targetOf(item, id, NAMESPACE_OF_LANE.read(row));
    return record === null ? null : { target: record, known: DECIDED_BESIDE.read(row, record.id) };
  },
};

/** The Namespace work handler over `deps`' Compute Driver. */
export function namespaceWork(
  deps: NamespacePassDeps,
): WorkHandler<NamespaceWorkKind, NamespaceRecord, NamespaceVerdict> {
  const events = deps.events;
  return {
    target: NAMESPACE_TARGET,
    permissions: (item, record) =>
      item.actor === RECONCILER_ACTOR
        ? null
        : namespacePassPermissions(item.kind, record.id, placementOf(record)),
    async reconcile(_db, item, record) {
      let seen: Seen | undefined;
      const repaired: string[] = [];
      const observer: PassObserver = {
        namespace: (name, uid) => {
          seen = { name, uid };
        },
        repaired: (kind) => {
          repaired.push(kind);
          // The write happened whatever the settle finds (a stale lease withholds the record).
          deps.onRepaired?.(kind);
        },
      };
      const input = {
        namespaceId: record.id,
        placement: placementOf(record),
        // An administrator's retry places the namespace as it is now (lifecycle.md §4).
        boundUid: record.retryRequestedAt !== null ? null : record.kubernetesUid,
        bound: isBound(record),
        observer,
      };
      const verdict: NamespaceVerdict =
        item.kind === "namespace.ensure"
          ? { kind: "ensure", result: await deps.compute.ensureNamespace(input), seen, repaired }
          : { kind: "teardown", result: await deps.compute.deleteNamespace(input) };
      const bound = verdict.kind === "ensure" && isBound(record);
      return { verdict, outcome: namespaceOutcomeOf(verdict.result, bound) };
    },
    record: (claim, record, verdict, workState) =>
      recordNamespaceOutcome(claim, record, verdict, workState, events),
  };
}

/** One level-based pass over a claimed Namespace work item (see `pass-runner.ts`). */
export function runNamespacePass(
  deps: NamespacePassDeps,
  claim: Claim<NamespaceWorkKind>,
): Promise<PassSummary> {
  return runPass(deps, namespaceWork(deps), claim);
}
