import {
  NAMESPACE_WORK_KINDS,
  namespaceQueueConfig as apiNamespaceQueueConfig,
  type NamespaceWorkKind,
} from "./namespace-work.js";
import { AGENT_WORK_KINDS, type AgentWorkKind } from "./agent-work.js";
import type { InstallationConfig } from "../config/installation-config.js";
import {
  DEFAULT_WORK_QUEUE_POLICY,
  createWorkQueue,
  type QueueConfig,
  type WorkQueue,
  type WorkQueuePolicy,
} from "../queue/index.js";

/** The Namespace work policy from the Installation configuration (`worker.*`). */
export function namespaceQueuePolicy(config: InstallationConfig): WorkQueuePolicy {
  return {
    ...DEFAULT_WORK_QUEUE_POLICY,
    maxAttempts: config.worker.maxAttempts,
    leaseMs: config.worker.leaseSeconds * 1_000,
    convergenceMs: config.worker.convergenceDeadlineSeconds * 1_000,
  };
}

/** The worker's view of the Namespace queue. */
export function namespaceWorkQueue(config: InstallationConfig): WorkQueue<NamespaceWorkKind> {
  return createWorkQueue({ kinds: NAMESPACE_WORK_KINDS, policy: namespaceQueuePolicy(config) });
}

/** The worker's view of the Agent queue: same policy, its own kinds and lanes. */
export function agentWorkQueue(config: InstallationConfig): WorkQueue<AgentWorkKind> {
  return createWorkQueue({ kinds: AGENT_WORK_KINDS, policy: namespaceQueuePolicy(config) });
}

/** The worker's queues, for metrics. */
export function workerQueues(config: InstallationConfig): readonly WorkQueue<string>[] {
  return [namespaceWorkQueue(config), agentWorkQueue(config)];
}

/** The API's view: the same kinds and policy, for enqueueing inside its transactions. */
export function namespaceQueueConfig(config: InstallationConfig): QueueConfig<NamespaceWorkKind> {
  return apiNamespaceQueueConfig({ policy: namespaceQueuePolicy(config) });
}
