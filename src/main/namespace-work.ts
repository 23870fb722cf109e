/**
 * The work a Namespace mutation queues (control-plane.md §5): its kinds, the lane it runs in,
 * and the deterministic idempotency keys `namespace:<id>:ready` and `namespace:<id>:deleted`.
 * The API enqueues and the worker claims by these kinds; the queue itself never interprets them.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { enqueue, type EnqueueInput } from "../queue/enqueue.js";
import { DEFAULT_WORK_QUEUE_POLICY, type WorkQueuePolicy } from "../queue/policy.js";
import type { QueueClock } from "../queue/clock.js";
import { workItemsTable, type QueueConfig, type WorkItem } from "../queue/work-items.js";
import type { Queryable } from "../store/db.js";

/** `namespace.ensure` places a Namespace; `namespace.teardown` removes its placement. */
export const NAMESPACE_WORK_KINDS = ["namespace.ensure", "namespace.teardown"] as const;
export type NamespaceWorkKind = (typeof NAMESPACE_WORK_KINDS)[number];

/** The lane: at most one item per Namespace is claimed at a time. */
export function namespaceWorkSubject(id: NamespaceId): string {
  return `namespace:${id}`;
}

/** The key of the work that brings a Namespace to ready. */
export function ensureWorkKey(id: NamespaceId): string {
  return `namespace:${id}:ready`;
}

/** The key of the work that tears a Namespace down to its tombstone. */
export function teardownWorkKey(id: NamespaceId): string {
  return `namespace:${id}:deleted`;
}

/** The queue configuration for Namespace work, with the spec's defaults. */
export function namespaceQueueConfig(
  opts: {
    readonly policy?: WorkQueuePolicy;
    readonly clock?: QueueClock;
    readonly random?: () => number;
  } = {},
): QueueConfig<NamespaceWorkKind> {
  return {
    kinds: NAMESPACE_WORK_KINDS,
    policy: opts.policy ?? DEFAULT_WORK_QUEUE_POLICY,
    clock: opts.clock ?? "database",
    random: opts.random ?? Math.random,
    table: workItemsTable(NAMESPACE_WORK_KINDS),
  };
}

/**
 * Enqueues in the caller's transaction; a repeat of the same work is fine, a key held by
 * different work (another kind, subject or actor) is a bug and throws.
 */
export async function enqueueNamespaceWork(
  config: QueueConfig<NamespaceWorkKind>,
  q: Queryable,
  input: EnqueueInput<NamespaceWorkKind>,
): Promise<WorkItem<NamespaceWorkKind>> {
  const result = await enqueue(config, q, input);
  if (result.outcome === "conflict") {
    throw new Error(
      `work key ${input.key} is held by different work (differs in ${result.differs.join(", ")})`,
    );
  }
  return result.item;
}
