/**
 * The work Agent mutations queue (control-plane.md §5, drivers.md §4): its kinds and the
 * deterministic keys `agent:<id>:revision:<revisionId>` and `agent:<id>:deleted`; its lane is
 * `agent:<id>` (`lanes.ts`: at most one item per Agent is claimed at a time). The API enqueues
 * and the worker claims by these kinds; the queue never interprets them.
 */
import type { AgentId, RevisionId } from "../domain/workloads/ids.js";
import type { QueueConfig } from "../queue/work-items.js";
import { workConfig, type WorkConfigOptions } from "./work-config.js";

/** `agent.deploy` brings an Agent to one revision; `agent.teardown` removes all its objects. */
export const AGENT_WORK_KINDS = ["agent.deploy", "agent.teardown"] as const;
export type AgentWorkKind = (typeof AGENT_WORK_KINDS)[number];

/** The key of the work that deploys one revision. */
export function revisionWorkKey(agentId: AgentId, revisionId: RevisionId): string {
  return `agent:${agentId}:revision:${revisionId}`;
}

/** The key of the work that tears an Agent down. */
export function agentTeardownWorkKey(agentId: AgentId): string {
  return `agent:${agentId}:deleted`;
}

/** The queue configuration for Agent work, with the spec's defaults. */
export function agentQueueConfig(opts: WorkConfigOptions = {}): QueueConfig<AgentWorkKind> {
  return workConfig(AGENT_WORK_KINDS, opts);
}
