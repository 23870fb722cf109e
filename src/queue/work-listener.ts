/**
 * Waking a worker when work is queued (control-plane.md §5: "wakes on LISTEN/NOTIFY as soon as
 * work is queued, polling only as a fallback").
 *
 * Both adapters deliver `NOTIFY`: the `pg` adapter on a dedicated connection, PGlite
 * in-process through its own `listen`. The fallback is the `timeoutMs` of {@link WorkSignal.wait}:
 * a worker waits for a notification *or* its poll interval (or the next `available_at`, see
 * `nextWakeAt`), so delayed retries, expired leases and notifications lost while the listening
 * connection was down are still found, only later.
 */
import type { Db, Subscription } from "../store/db.js";
import { WORK_CHANNEL } from "./work-items.js";

export type WakeReason = "notified" | "timeout" | "aborted";

export interface WorkSignal {
  /**
   * Resolves `notified` as soon as work of a watched kind is enqueued (immediately if a
   * notification arrived since the last wait returned, so none falls between two waits),
   * `timeout` after `timeoutMs`, or `aborted` when `signal` aborts. One notification wakes
   * one waiter (the longest waiting): it announces one item, and waking every idle slot for it
   * sent them all racing for that one item, each spending a claim and a wake-up query to find
   * nothing. A slot that claimed something calls {@link wakeAnother}, so a burst of work (or
   * notifications that arrived while no one waited) still fans out to every idle slot.
   */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<WakeReason>;
  /**
   * Wakes one more waiter, if any is waiting (nothing is latched otherwise): the caller just
   * claimed work, so there may be more.
   */
  wakeAnother(): void;
  /** Stops listening and resolves pending waits as `aborted`. */
  close(): Promise<void>;
}

export interface ListenForWorkOptions {
  /** Only wake for these kinds (default: any). */
  readonly kinds?: readonly string[];
  /** First delay before resubscribing after the connection is lost; doubles up to 30 s. */
  readonly resubscribeDelayMs?: number;
  /** Reports a lost subscription or a failed resubscribe (for logging; handled here). */
  readonly onError?: (err: Error) => void;
}

const MAX_RESUBSCRIBE_DELAY_MS = 30_000;

/**
 * Subscribes to the work channel. When the subscription dies it resubscribes with backoff and,
 * once back, wakes every waiter — notifications sent meanwhile were lost, so the worker should
 * look for work now.
 */
export async function listenForWork(db: Db, opts: ListenForWorkOptions = {}): Promise<WorkSignal> {
  const firstDelay = opts.resubscribeDelayMs ?? 500;
  const waiters = new Set<(reason: WakeReason) => void>();
  let latched = false;
  let closed = false;
  let subscription: Subscription | undefined;
  let retryTimer: NodeJS.Timeout | undefined;

  const wakeAll = (): void => {
    if (waiters.size === 0) {
      latched = true;
      return;
    }
    for (const resolve of [...waiters]) resolve("notified");
  };
  /** Wakes the longest-waiting waiter; `latch` when none waits. */
  const wakeOne = (latch: boolean): void => {
    const first = waiters.values().next();
    if (first.done !== true) first.value("notified");
    else if (latch) latched = true;
  };

  const subscribe = async (): Promise<void> => {
    subscription = await db.listen(WORK_CHANNEL, {
      onNotify: (kind) => {
        if (opts.kinds === undefined || opts.kinds.includes(kind)) wakeOne(true);
      },
      onError: (err) => {
        subscription = undefined;
        opts.onError?.(err);
        resubscribe(firstDelay);
      },
    });
  };

  const resubscribe = (delayMs: number): void => {
    if (closed) return;
    retryTimer = setTimeout(() => {
      subscribe().then(
        () => {
          if (closed) void subscription?.close();
          else wakeAll();
        },
        (err: unknown) => {
          opts.onError?.(err instanceof Error ? err : new Error(String(err)));
          resubscribe(Math.min(MAX_RESUBSCRIBE_DELAY_MS, delayMs * 2));
        },
      );
    }, delayMs);
  };

  await subscribe();

  return {
    wait(timeoutMs, signal) {
      if (closed || signal?.aborted === true) return Promise.resolve("aborted");
      if (latched) {
        latched = false;
        return Promise.resolve("notified");
      }
      return new Promise<WakeReason>((resolve) => {
        const finish = (reason: WakeReason): void => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          waiters.delete(finish);
          resolve(reason);
        };
        const onAbort = (): void => {
          finish("aborted");
        };
        const timer = setTimeout(() => {
          finish("timeout");
        }, timeoutMs);
        signal?.addEventListener("abort", onAbort, { once: true });
        waiters.add(finish);
      });
    },
    wakeAnother() {
      wakeOne(false);
    },
    async close() {
      closed = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      for (const resolve of [...waiters]) resolve("aborted");
      await subscription?.close();
    },
  };
}
