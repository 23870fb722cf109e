/**
 * Outcomes of the workload side of the Compute Driver (drivers.md §4): deploying an Agent
 * revision and tearing an Agent down. The codes are the placement codes (placement.md §7) plus
 * the few a workload needs, each with exactly one class, defined once here; results are built
 * only through {@link workloadNotDone}, which reads that table.
 */
import {
  OUTCOME_CLASS_BY_CODE,
  type Deleted,
  type NotDone,
  type OutcomeClass,
} from "../placement/outcomes.js";
import { sanitizeReason } from "../input/reason.js";

export const WORKLOAD_OUTCOME_CLASS_BY_CODE = {
  ...OUTCOME_CLASS_BY_CODE,
  /** The gateway Deployment has not reported the new revision available yet. */
  WORKLOAD_ROLLOUT_PENDING: "pending",
  /** An object being deleted is still there; teardown or retirement continues next pass. */
  WORKLOAD_DELETION_PENDING: "pending",
  /** An existing claim differs from what OCC would create (access mode, size, class). */
  WORKLOAD_CLAIM_MISMATCH: "permanent",
} as const satisfies Readonly<Record<string, OutcomeClass>>;

export type WorkloadCode = keyof typeof WORKLOAD_OUTCOME_CLASS_BY_CODE;

/** A workload pass that is not done: pending (free retry) or failed (retry per class). */
export interface WorkloadNotDone {
  readonly outcome: "pending" | "failed";
  readonly code: WorkloadCode;
  readonly reason: string;
  readonly retryable: boolean;
}

/** The revision's objects exist and the gateway serves it; older revisions are retired. */
export interface RevisionActive {
  readonly outcome: "active";
  readonly namespaceName: string;
}

/** Every object of the Agent, its claims included, is gone: the placement's deleted result. */
export type AgentTornDown = Deleted;

export type DeployRevisionResult = RevisionActive | WorkloadNotDone;
export type TeardownAgentResult = AgentTornDown | WorkloadNotDone;

/** Builds the not-done result for `code`, its class from the table, the reason sanitized. */
export function workloadNotDone(code: WorkloadCode, reason: string): WorkloadNotDone {
  const cls: OutcomeClass = WORKLOAD_OUTCOME_CLASS_BY_CODE[code];
  return {
    outcome: cls === "pending" ? "pending" : "failed",
    code,
    reason: sanitizeReason(reason),
    retryable: cls === "retryable",
  };
}

/** A placement result (from the shared Kubernetes failure mapping) as a workload result. */
export function workloadNotDoneOf(result: NotDone): WorkloadNotDone {
  return workloadNotDone(result.code, result.reason);
}
