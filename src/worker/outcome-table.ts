/**
 * The worker's outcome table (control-plane.md §5), in one place for every work kind. A pass
 * ends in one of a closed set of outcomes, and each outcome takes exactly one fenced queue
 * move:
 *
 * | Outcome    | Meaning                                                    | Queue move |
 * |------------|------------------------------------------------------------|------------|
 * | `done`     | converged (ready, deleted, active), or a verdict recorded   | complete   |
 * | `pending`  | not yet: waiting on something outside OCC, nothing failed   | defer      |
 * | `retry`    | a transient failure                                         | retry      |
 * | `terminal` | a permanent failure, or a stop before the Driver was called | fail       |
 *
 * The queue decides what a move leads to (a retry or defer past the attempts or the
 * convergence deadline ends `failed_permanent`); the work kind decides what that means for
 * its resource.
 */
import type { WorkNote } from "../queue/work-items.js";

/** What one pass came to; every outcome but `done` carries its reason. */
export type PassOutcome =
  | { readonly kind: "done"; readonly note?: WorkNote }
  | { readonly kind: "pending" | "retry" | "terminal"; readonly note: WorkNote };

export type PassOutcomeKind = PassOutcome["kind"];

/** The fenced queue transitions a pass can take (see `queue/transitions.ts`). */
export type QueueMove = "complete" | "defer" | "retry" | "fail";

/** The single outcome → queue-move table. */
export const QUEUE_MOVES: { readonly [O in PassOutcomeKind]: QueueMove } = {
  done: "complete",
  pending: "defer",
  retry: "retry",
  terminal: "fail",
};

/**
 * A Driver result, of any kind of work: converged (`ready`, `deleted`, `active`), or not done
 * with a stable code, a sanitized reason and — for a failure — whether the code's class is
 * retryable (decided by the domain's code table, never here).
 */
export type DriverResult =
  | { readonly outcome: "ready" | "deleted" | "active" }
  | { readonly outcome: "pending"; readonly code: string; readonly reason: string }
  | {
      readonly outcome: "failed";
      readonly code: string;
      readonly reason: string;
      readonly retryable: boolean;
    };

/** The outcome of a Driver result. */
export function outcomeOfResult(result: DriverResult): PassOutcome {
  switch (result.outcome) {
    case "ready":
    case "deleted":
    case "active":
      return { kind: "done" };
    case "pending":
      return { kind: "pending", note: { code: result.code, message: result.reason } };
    case "failed":
      return {
        kind: result.retryable ? "retry" : "terminal",
        note: { code: result.code, message: result.reason },
      };
  }
}
