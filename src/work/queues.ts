/**
 * The work queues as the Installation configuration sets them (`worker.*`): one policy for
 * every vocabulary, the worker's queue objects, and the configuration the API enqueues with.
 */
import type { InstallationConfig } from "../config/installation-config.js";
import {
  DEFAULT_WORK_QUEUE_POLICY,
  createWorkQueue,
  type WorkQueue,
  type WorkQueuePolicy,
} from "../queue/index.js";
import { AGENT_WORK_KINDS, type AgentWorkKind } from "./agent-work.js";
import { NAMESPACE_WORK_KINDS, type NamespaceWorkKind } from "./namespace-work.js";

/** The work policy from the Installation configuration (`worker.*`), for every kind. */
export function workQueuePolicy(config: InstallationConfig): WorkQueuePolicy {
  return {
    ...DEFAULT_WORK_QUEUE_POLICY,
    maxAttempts: config.worker.maxAttempts,
    leaseMs: config.worker.leaseSeconds * 1_000,
    convergenceMs: config.worker.convergenceDeadlineSeconds * 1_000,
  };
}

/** The worker's view of the Namespace queue. */
export function namespaceWorkQueue(config: InstallationConfig): WorkQueue<NamespaceWorkKind> {
  return createWorkQueue({ kinds: NAMESPACE_WORK_KINDS, policy: workQueuePolicy(config) });
}

/** The worker's view of the Agent queue: same policy, its own kinds and lanes. */
export function agentWorkQueue(config: InstallationConfig): WorkQueue<AgentWorkKind> {
  return createWorkQueue({ kinds: AGENT_WORK_KINDS, policy: workQueuePolicy(config) });
}

/** The worker's queues, for metrics. */
export function workerQueues(config: InstallationConfig): readonly WorkQueue<string>[] {
  return [namespaceWorkQueue(config), agentWorkQueue(config)];
}
