/**
 * The record of an Agent pass, declared (`record-writes.ts`): what the outcome means for the
 * Agent and its revisions, with a lifecycle audit event, made with the fenced queue move.
 *
 * | Driver result | Work | Agent / revision |
 * |---|---|---|
 * | active | succeeded | revision active, the Agent points at it, older active → retired, older queued → superseded |
 * | deleted | succeeded | the Agent row and its revisions are deleted |
 * | pending | requeued, attempt refunded | revision stays queued; the Agent's reason shows why |
 * | retryable | requeued with backoff | as pending |
 * | permanent, or attempts/deadline spent | failed_permanent | revision failed (deploy); the Agent keeps the reason |
 */
import type { DeployRevisionResult, TeardownAgentResult } from "../domain/index.js";
import type { AgentWorkKind } from "../work/agent-work.js";
import type { Claim, WorkState } from "../queue/index.js";
import {
  retireOtherRevisions,
  setRevisionStatus,
  type AgentRevisionRecord,
} from "../store/agent-revisions.js";
import { supersedeQueuedRevisions } from "../store/agent-revision-settle.js";
import { deleteAgentRow, setAgentReason, setCurrentRevision } from "../store/agents.js";
import { auditGated, type NewAuditEvent } from "../store/audit-events.js";
import type { AgentRecord } from "../store/agents.js";
import { outcomeOfResult, type PassOutcome } from "./outcome-table.js";
import type { Stopped } from "./pass-runner.js";
import {
  composable,
  inTransaction,
  type DeclaredRecord,
  type RecordWrite,
} from "./record-writes.js";

/** What a pass is about: the Agent, and for deploy work its latest revision. */
export interface AgentTarget {
  readonly agent: AgentRecord;
  readonly revision: AgentRevisionRecord | undefined;
}

/** A stable code and a sanitized message, as stored on the Agent and its revision. */
export interface AgentReason {
  readonly code: string;
  readonly message: string;
}

/**
 * What the pass concluded: a Driver result, or `refused` when the Driver could not be called
 * as admitted (the Namespace or a referenced ServiceAccount or Secret is gone).
 */
export type AgentVerdict =
  | { readonly kind: "deploy"; readonly result: DeployRevisionResult }
  | { readonly kind: "teardown"; readonly result: TeardownAgentResult }
  | { readonly kind: "refused"; readonly reason: AgentReason };

/** The pass outcome of a verdict: the common table; a refusal is permanent. */
export function agentOutcomeOf(verdict: AgentVerdict): PassOutcome {
  return verdict.kind === "refused"
    ? { kind: "terminal", note: verdict.reason }
    : outcomeOfResult(verdict.result);
}

function reasonOf(verdict: AgentVerdict | Stopped): AgentReason | null {
  if (verdict.kind === "stopped" || verdict.kind === "refused") return verdict.reason;
  const r = verdict.result;
  return r.outcome === "active" || r.outcome === "deleted"
    ? null
    : { code: r.code, message: r.reason };
}

/**
 * What the Agent (or its revision) becomes after the queue move left the work in `workState`,
 * with a lifecycle audit event when that is news: writes the settle transaction runs.
 */
export function recordAgentOutcome(
  claim: Claim<AgentWorkKind>,
  target: AgentTarget,
  verdict: AgentVerdict | Stopped,
  workState: WorkState,
): DeclaredRecord {
  const reason = reasonOf(verdict);
  const finished = workState === "failed_permanent";
  const { writes, to } = agentChange(claim.item.kind, target, verdict, reason, finished);
  if (to === null) return { writes };
  const event: NewAuditEvent = {
    kind: "lifecycle",
    actor: claim.item.actor,
    action:
      claim.item.kind === "agent.deploy" ? "agents.lifecycle.deploy" : "agents.lifecycle.teardown",
    resourceKind: "agent",
    resourceId: target.agent.id,
    // Waiting (a rollout, a deletion in progress) is not a failure.
    outcome: to === "failed" || to === "retrying" ? "failure" : "success",
    details: {
      to,
      workItem: claim.item.id,
      // The claim that settled it: the worker holding the lease (`<host>:<pid>`) and its attempt.
      worker: claim.item.claimedBy,
      attempt: claim.lease.attempt,
      ...(target.revision !== undefined ? { revisionId: target.revision.id } : {}),
      ...(reason !== null ? { code: reason.code } : {}),
    },
  };
  return { writes: [...writes, composable(auditGated(event))] };
}

/**
 * The writes of the outcome, and what the Agent (or revision) became when that is news worth
 * an audit event (`to: null` for a repeated pending or retry with the same reason).
 */
function agentChange(
  kind: AgentWorkKind,
  target: AgentTarget,
  verdict: AgentVerdict | Stopped,
  reason: AgentReason | null,
  finished: boolean,
): { readonly writes: readonly RecordWrite[]; readonly to: string | null } {
  const { agent, revision } = target;
  if (reason === null) {
    if (kind === "agent.teardown") {
      return { writes: [inTransaction((tx) => deleteAgentRow(tx, agent.id))], to: "deleted" };
    }
    if (revision === undefined) return { writes: [], to: null };
    const activate = inTransaction(async (tx) => {
      await setRevisionStatus(tx, revision.id, "active", null);
      await retireOtherRevisions(tx, agent.id, revision.id);
      await supersedeQueuedRevisions(tx, agent.id, revision.id);
      await setCurrentRevision(tx, agent.id, revision.id);
    });
    const already = revision.status === "active" && agent.currentRevisionId === revision.id;
    return { writes: [activate], to: already ? null : "active" };
  }
  const failRevision =
    kind === "agent.deploy" && revision !== undefined && revision.status === "queued";
  const writes = [
    inTransaction(async (tx) => {
      await setAgentReason(tx, agent.id, reason);
      if (failRevision) {
        await setRevisionStatus(tx, revision.id, finished ? "failed" : "queued", reason);
      }
    }),
  ];
  if (finished || verdict.kind === "stopped" || verdict.kind === "refused") {
    return { writes, to: "failed" };
  }
  if (agent.statusCode === reason.code) return { writes, to: null };
  return { writes, to: verdict.result.outcome === "pending" ? "pending" : "retrying" };
}
