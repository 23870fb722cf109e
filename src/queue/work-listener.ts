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
   * `timeout` after `timeoutMs`, or `aborted` when `signal` aborts. Every pending waiter is
   * woken by one notification.
   */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<WakeReason>;
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

  const subscribe = async (): Promise<void> => {
    subscription = await db.listen(WORK_CHANNEL, {
      onNotify: (kind) => {
        if (opts.kinds === undefined || opts.kinds.includes(kind)) wakeAll();
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
    async close() {
      closed = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      for (const resolve of [...waiters]) resolve("aborted");
      await subscription?.close();
    },
  };
}
