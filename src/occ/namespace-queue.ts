import {
  NAMESPACE_WORK_KINDS,
  namespaceQueueConfig as apiNamespaceQueueConfig,
  type NamespaceWorkKind,
} from "./namespace-work.js";
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

/** The API's view: the same kinds and policy, for enqueueing inside its transactions. */
export function namespaceQueueConfig(config: InstallationConfig): QueueConfig<NamespaceWorkKind> {
  return apiNamespaceQueueConfig({ policy: namespaceQueuePolicy(config) });
}
