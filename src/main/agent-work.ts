/**
 * The work Agent mutations queue (control-plane.md §5, drivers.md §4): its kinds, the lane
 * `agent:<id>` (at most one item per Agent is claimed at a time), and the deterministic keys
 * `agent:<id>:revision:<revisionId>` and `agent:<id>:deleted`. The API enqueues and the worker
 * claims by these kinds; the queue never interprets them.
 */
import { isAgentId, type AgentId, type RevisionId } from "../domain/workloads/ids.js";
import { enqueue, type EnqueueInput } from "../queue/enqueue.js";
import { DEFAULT_WORK_QUEUE_POLICY, type WorkQueuePolicy } from "../queue/policy.js";
import { workItemsTable, type QueueConfig, type WorkItem } from "../queue/work-items.js";
import type { Queryable } from "../store/db.js";

/** `agent.deploy` brings an Agent to one revision; `agent.teardown` removes all its objects. */
export const AGENT_WORK_KINDS = ["agent.deploy", "agent.teardown"] as const;
export type AgentWorkKind = (typeof AGENT_WORK_KINDS)[number];

const SUBJECT_PREFIX = "agent:";

/** The lane of an Agent's work. */
export function agentWorkSubject(agentId: AgentId): string {
  return `${SUBJECT_PREFIX}${agentId}`;
}

/** The Agent ID of a lane, or `null` when the subject is not an Agent lane. */
export function agentIdOfSubject(subject: string): AgentId | null {
  const id = subject.startsWith(SUBJECT_PREFIX) ? subject.slice(SUBJECT_PREFIX.length) : null;
  return isAgentId(id) ? id : null;
}

/** The key of the work that deploys one revision. */
export function revisionWorkKey(agentId: AgentId, revisionId: RevisionId): string {
  return `agent:${agentId}:revision:${revisionId}`;
}

/** The key of the work that tears an Agent down. */
export function agentTeardownWorkKey(agentId: AgentId): string {
  return `agent:${agentId}:deleted`;
}

export function isAgentWorkKind(kind: string): kind is AgentWorkKind {
  return (AGENT_WORK_KINDS as readonly string[]).includes(kind);
}

/** The queue configuration for Agent work, with the spec's defaults. */
export function agentQueueConfig(
  opts: { readonly policy?: WorkQueuePolicy } = {},
): QueueConfig<AgentWorkKind> {
  return {
    kinds: AGENT_WORK_KINDS,
    policy: opts.policy ?? DEFAULT_WORK_QUEUE_POLICY,
    clock: "database",
    random: Math.random,
    table: workItemsTable(AGENT_WORK_KINDS),
  };
}

/**
 * Enqueues in the caller's transaction; a repeat of the same work is fine, a key held by
 * different work is a bug and throws.
 */
export async function enqueueAgentWork(
  config: QueueConfig<AgentWorkKind>,
  q: Queryable,
  input: EnqueueInput<AgentWorkKind>,
): Promise<WorkItem<AgentWorkKind>> {
  const result = await enqueue(config, q, input);
  if (result.outcome === "conflict") {
    throw new Error(
      `work key ${input.key} is held by different work (differs in ${result.differs.join(", ")})`,
    );
  }
  return result.item;
}
