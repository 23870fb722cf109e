/**
 * The work a Namespace mutation queues (control-plane.md §5): its kinds and the deterministic
 * idempotency keys `namespace:<id>:ready`, `namespace:<id>:deleted` and the two alternating
 * reconcile keys; its lane is `namespace:<id>` (`lanes.ts`). The API enqueues and the worker
 * claims by these kinds; the queue itself never interprets them.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import type { QueueConfig } from "../queue/work-items.js";
import { workConfig, type WorkConfigOptions } from "./work-config.js";

/** `namespace.ensure` places a Namespace; `namespace.teardown` removes its placement. */
export const NAMESPACE_WORK_KINDS = ["namespace.ensure", "namespace.teardown"] as const;
export type NamespaceWorkKind = (typeof NAMESPACE_WORK_KINDS)[number];

/** The key of the work that brings a Namespace to ready. */
export function ensureWorkKey(id: NamespaceId): string {
  return `namespace:${id}:ready`;
}

/** The key of the work that tears a Namespace down to its tombstone. */
export function teardownWorkKey(id: NamespaceId): string {
  return `namespace:${id}:deleted`;
}

/** The two alternating keys of a bound Namespace's reconcile work (`namespace-pass-request.ts`). */
export function reconcileWorkKeys(id: NamespaceId): readonly [string, string] {
  return [`namespace:${id}:reconcile:a`, `namespace:${id}:reconcile:b`];
}

/** The queue configuration for Namespace work, with the spec's defaults. */
export function namespaceQueueConfig(opts: WorkConfigOptions = {}): QueueConfig<NamespaceWorkKind> {
  return workConfig(NAMESPACE_WORK_KINDS, opts);
}
