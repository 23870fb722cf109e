/**
 * `--wait`: polls until a condition settles, printing a progress line to stderr whenever what
 * the operator would want to know changes (status, reason), never the same line twice.
 */

/** What one poll concluded: keep waiting, done, or a final failure with its explanation. */
export type WaitVerdict = { readonly kind: "waiting" } | { readonly kind: "done" } | FailVerdict;
export interface FailVerdict {
  readonly kind: "failed";
  readonly message: string;
}

export interface WaitOptions<T> {
  /** What is awaited, for the timeout message ("ns_… to become ready"). */
  readonly what: string;
  readonly poll: () => Promise<T>;
  readonly judge: (value: T) => WaitVerdict;
  /** The progress line for a value. */
  readonly progress: (value: T) => string;
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  readonly say: (line: string) => void;
}

/** Thrown when the wait ends in failure or times out; the CLI exits non-zero with it. */
export class WaitFailed extends Error {
  override readonly name = "WaitFailed";
}

/** Polls until `judge` says done (resolves with the last value) or failed/timeout (throws). */
export async function waitFor<T>(opts: WaitOptions<T>): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  const interval = opts.intervalMs ?? 1_000;
  let last = "";
  for (;;) {
    const value = await opts.poll();
    const line = opts.progress(value);
    if (line !== last) {
      opts.say(line);
      last = line;
    }
    const verdict = opts.judge(value);
    if (verdict.kind === "done") return value;
    if (verdict.kind === "failed") throw new WaitFailed(verdict.message);
    if (Date.now() >= deadline) {
      throw new WaitFailed(
        `timed out after ${Math.round(opts.timeoutMs / 1000)} s waiting for ${opts.what}; last: ${line}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/** Parses `--timeout` values like `90s`, `5m`, `1h` or plain seconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  if (m === null) {
    throw new Error(`--timeout: "${text}" is not a duration; use e.g. 90s, 5m or 1h`);
  }
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  const factor = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit] ?? 1_000;
  return n * factor;
}
