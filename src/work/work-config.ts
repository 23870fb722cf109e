/**
 * What every work vocabulary shares: its queue configuration with the spec's defaults, and an
 * enqueue that treats a key held by different work as the bug it is.
 */
import { enqueue, type EnqueueInput } from "../queue/enqueue.js";
import type { QueueClock } from "../queue/clock.js";
import { DEFAULT_WORK_QUEUE_POLICY, type WorkQueuePolicy } from "../queue/policy.js";
import { workItemsTable, type QueueConfig, type WorkItem } from "../queue/work-items.js";
import type { Queryable } from "../store/db.js";

export interface WorkConfigOptions {
  /** Default {@link DEFAULT_WORK_QUEUE_POLICY}; `workQueuePolicy` derives it from the configuration. */
  readonly policy?: WorkQueuePolicy;
  /** Default `"database"`. */
  readonly clock?: QueueClock;
  /** Default `Math.random`. */
  readonly random?: () => number;
}

/** The queue configuration for one vocabulary of kinds. */
export function workConfig<K extends string>(
  kinds: readonly K[],
  opts: WorkConfigOptions = {},
): QueueConfig<K> {
  return {
    kinds,
    policy: opts.policy ?? DEFAULT_WORK_QUEUE_POLICY,
    clock: opts.clock ?? "database",
    random: opts.random ?? Math.random,
    table: workItemsTable(kinds),
  };
}

/**
 * Enqueues in the caller's transaction; a repeat of the same work is fine, a key held by
 * different work (another kind, subject or actor) is a bug and throws.
 */
export async function enqueueWork<K extends string>(
  config: QueueConfig<K>,
  q: Queryable,
  input: EnqueueInput<K>,
): Promise<WorkItem<K>> {
  const result = await enqueue(config, q, input);
  if (result.outcome === "conflict") {
    throw new Error(
      `work key ${input.key} is held by different work (differs in ${result.differs.join(", ")})`,
    );
  }
  return result.item;
}
