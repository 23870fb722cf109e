/** Waits that end early when their process stops (the transport's `close`). */

/** Waits `ms`, or less when `signal` is aborted meanwhile (its timer then cleared). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const slept = new Promise<void>((r) => {
    timer = setTimeout(r, ms);
  });
  return settledOrAborted(slept, signal, () => {
    clearTimeout(timer);
  });
}

/**
 * `work`'s value, or — when `signal` is aborted first — `onAbort()`'s (no listener is left on
 * `signal` either way, so a long-lived signal does not collect one per call). `work` itself
 * goes on: `onAbort` releases what it holds (a timer) if anything must be.
 */
export function settledOrAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
  onAbort: () => T,
): Promise<T> {
  if (signal.aborted) return Promise.resolve(onAbort());
  return new Promise<T>((resolve, reject) => {
    const aborted = () => {
      resolve(onAbort());
    };
    signal.addEventListener("abort", aborted, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", aborted);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", aborted);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
