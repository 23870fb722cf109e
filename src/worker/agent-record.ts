/**
 * The record step of an Agent pass: inside the runner's settle transaction, after the fenced
 * queue move, what it means for the Agent and its revisions, with a lifecycle audit event.
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
import { retireOtherRevisions, setRevisionStatus } from "../store/agent-revisions.js";
import { deleteAgentRow, setAgentReason, setCurrentRevision } from "../store/agents.js";
import { appendAuditEvent } from "../store/audit-events.js";
import type { AgentRevisionRecord } from "../store/agent-revisions.js";
import type { AgentRecord } from "../store/agents.js";
import type { Queryable } from "../store/db.js";
import { outcomeOfResult, type PassOutcome } from "./outcome-table.js";
import type { Stopped } from "./pass-runner.js";

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
 * with a lifecycle audit event when that is news.
 */
export async function recordAgentOutcome(
  tx: Queryable,
  claim: Claim<AgentWorkKind>,
  target: AgentTarget,
  verdict: AgentVerdict | Stopped,
  workState: WorkState,
): Promise<void> {
  const reason = reasonOf(verdict);
  const finished = workState === "failed_permanent";
  const to = await applyOutcome(tx, claim.item.kind, target, verdict, reason, finished);
  if (to === null) return;
  await appendAuditEvent(tx, {
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
  });
}

/**
 * Applies the outcome; returns what the Agent (or revision) became when that is news worth an
 * audit event (`null` for a repeated pending or retry with the same reason).
 */
async function applyOutcome(
  tx: Queryable,
  kind: AgentWorkKind,
  target: AgentTarget,
  verdict: AgentVerdict | Stopped,
  reason: AgentReason | null,
  finished: boolean,
): Promise<string | null> {
  const { agent, revision } = target;
  if (reason === null) {
    if (kind === "agent.teardown") {
      await deleteAgentRow(tx, agent.id);
      return "deleted";
    }
    if (revision === undefined) return null;
    await setRevisionStatus(tx, revision.id, "active", null);
    await retireOtherRevisions(tx, agent.id, revision.id);
    await tx.query(
      `UPDATE agent_revisions SET status = 'superseded'
       WHERE agent_id = $1 AND id <> $2 AND status = 'queued'`,
      [agent.id, revision.id],
    );
    await setCurrentRevision(tx, agent.id, revision.id);
    return revision.status === "active" && agent.currentRevisionId === revision.id
      ? null
      : "active";
  }
  await setAgentReason(tx, agent.id, reason);
  if (kind === "agent.deploy" && revision !== undefined && revision.status === "queued") {
    await setRevisionStatus(tx, revision.id, finished ? "failed" : "queued", reason);
  }
  if (finished || verdict.kind === "stopped" || verdict.kind === "refused") return "failed";
  if (agent.statusCode === reason.code) return null;
  return verdict.result.outcome === "pending" ? "pending" : "retrying";
}
