/**
 * Step 5 of an Agent pass: the fenced queue move and what it means for the Agent and its
 * revisions, with a lifecycle audit event, in one transaction.
 *
 * | Driver result | Work | Agent / revision |
 * |---|---|---|
 * | active | succeeded | revision active, the Agent points at it, older active → retired, older queued → superseded |
 * | deleted | succeeded | the Agent row and its revisions are deleted |
 * | pending | requeued, attempt refunded | revision stays queued; the Agent's reason shows why |
 * | retryable | requeued with backoff | as pending |
 * | permanent, or attempts/deadline spent | failed_permanent | revision failed (deploy); the Agent keeps the reason |
 */
import type {
  DeployRevisionResult,
  TeardownAgentResult,
  WorkloadNotDone,
} from "../domain/index.js";
import type { AgentWorkKind } from "../work/agent-work.js";
import type { Claim } from "../queue/index.js";
import { retireOtherRevisions, setRevisionStatus } from "../store/agent-revisions.js";
import { deleteAgentRow, setAgentReason, setCurrentRevision } from "../store/agents.js";
import { appendAuditEvent } from "../store/audit-events.js";
import type { Queryable } from "../store/db.js";
import type { AgentPassDeps, Target } from "./agent-pass.js";
import type { PassSummary } from "./namespace-pass.js";
import type { QueueMove } from "./outcome-table.js";

/** A stable code and a sanitized message, as stored on the Agent and its revision. */
export interface AgentReason {
  readonly code: string;
  readonly message: string;
}

/** What the pass concluded: a Driver result, or a stop before the Driver was called. */
export type AgentVerdict =
  | { readonly kind: "deploy"; readonly result: DeployRevisionResult }
  | { readonly kind: "teardown"; readonly result: TeardownAgentResult }
  | { readonly kind: "stopped"; readonly reason: AgentReason };

function moveOf(verdict: AgentVerdict): QueueMove {
  if (verdict.kind === "stopped") return "fail";
  const r = verdict.result;
  if (r.outcome === "active" || r.outcome === "deleted") return "complete";
  if (r.outcome === "pending") return "defer";
  return r.retryable ? "retry" : "fail";
}

function reasonOf(verdict: AgentVerdict): AgentReason | null {
  if (verdict.kind === "stopped") return verdict.reason;
  const r = verdict.result;
  return r.outcome === "active" || r.outcome === "deleted" ? null : reasonOfNotDone(r);
}

function reasonOfNotDone(r: WorkloadNotDone): AgentReason {
  return { code: r.code, message: r.reason };
}

export async function settleAgentPass(
  deps: AgentPassDeps,
  claim: Claim<AgentWorkKind>,
  target: Target,
  verdict: AgentVerdict,
): Promise<PassSummary> {
  const { queue } = deps;
  const move = moveOf(verdict);
  const reason = reasonOf(verdict);
  return deps.db.transaction(async (tx) => {
    const moved =
      move === "complete"
        ? await queue.complete(tx, claim.lease, reason ?? undefined)
        : await queue[move](tx, claim.lease, reason ?? unreachable());
    if (moved.outcome === "stale") return { result: "stale" } as const;
    const finished = moved.item.state === "failed_permanent";
    const to = await applyOutcome(tx, claim.item.kind, target, verdict, reason, finished);
    if (to !== null) {
      await appendAuditEvent(tx, {
        kind: "lifecycle",
        actor: claim.item.actor,
        action:
          claim.item.kind === "agent.deploy"
            ? "agents.lifecycle.deploy"
            : "agents.lifecycle.teardown",
        resourceKind: "agent",
        resourceId: target.agent.id,
        // Waiting (a rollout, a deletion in progress) is not a failure.
        outcome: to === "failed" || to === "retrying" ? "failure" : "success",
        details: {
          to,
          workItem: claim.item.id,
          ...(target.revision !== undefined ? { revisionId: target.revision.id } : {}),
          ...(reason !== null ? { code: reason.code } : {}),
        },
      });
    }
    return { result: "applied", move, code: reason?.code ?? null } as const;
  });
}

/**
 * Applies the outcome; returns what the Agent (or revision) became when that is news worth an
 * audit event (`null` for a repeated pending or retry with the same reason).
 */
async function applyOutcome(
  tx: Queryable,
  kind: AgentWorkKind,
  target: Target,
  verdict: AgentVerdict,
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
  if (finished || verdict.kind === "stopped") return "failed";
  if (agent.statusCode === reason.code) return null;
  return verdict.result.outcome === "pending" ? "pending" : "retrying";
}

function unreachable(): never {
  throw new Error("every pending, failed or stopped pass has a reason");
}
