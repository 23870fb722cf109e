/**
 * Queue policy: attempts, leases, the convergence deadline and backoff (control-plane.md §5).
 * The delay functions are pure, so the schedule is tested exhaustively without a database.
 */

/** An exponential schedule: `baseMs · 2^(n−1)`, capped at `maxMs`, then jittered. */
export interface BackoffPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
  /** 0–1: the delay is stretched by up to this fraction (never past `maxMs`). */
  readonly jitter: number;
}

export interface WorkQueuePolicy {
  /** Claims an item may spend before a retryable failure becomes permanent. */
  readonly maxAttempts: number;
  /** How long a claim stays valid without renewal. */
  readonly leaseMs: number;
  /** From enqueue (or reopen): after this, pending or failing work fails permanently. */
  readonly convergenceMs: number;
  /** After a retryable failure, by attempt number (1 s … 300 s by default). */
  readonly retryBackoff: BackoffPolicy;
  /** After a pending outcome, by consecutive pending count: short, since nothing failed. */
  readonly pendingBackoff: BackoffPolicy;
}

/** The spec's defaults: 5 attempts, 15 s lease, 15 min convergence deadline. */
export const DEFAULT_WORK_QUEUE_POLICY: WorkQueuePolicy = {
  maxAttempts: 5,
  leaseMs: 15_000,
  convergenceMs: 15 * 60_000,
  retryBackoff: { baseMs: 1_000, maxMs: 300_000, jitter: 0.5 },
  pendingBackoff: { baseMs: 1_000, maxMs: 10_000, jitter: 0.5 },
};

/**
 * The delay before the `n`-th retry (n ≥ 1): `step = min(max, base · 2^(n−1))`, stretched by
 * `jitter · random()` and capped at `max`. Jitter only lengthens, so the schedule never goes
 * below `base` or above `max`; it spreads items that failed together (an API server outage)
 * so they do not all return in the same instant. `random` returns a number in [0, 1).
 */
export function backoffDelayMs(n: number, policy: BackoffPolicy, random: () => number): number {
  const exponent = Math.max(0, Math.floor(n) - 1);
  // 2^exponent overflows to Infinity long after it passes any cap; min() handles that.
  const step = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  return Math.round(Math.min(policy.maxMs, step * (1 + policy.jitter * random())));
}

/** Checks a policy, naming the first invalid field. */
export function validatePolicy(policy: WorkQueuePolicy): WorkQueuePolicy {
  const positive = (name: string, v: number): void => {
    if (!Number.isFinite(v) || v <= 0) throw new RangeError(`work queue: ${name} must be > 0`);
  };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError("work queue: maxAttempts must be an integer ≥ 1");
  }
  positive("leaseMs", policy.leaseMs);
  positive("convergenceMs", policy.convergenceMs);
  for (const [name, b] of [
    ["retryBackoff", policy.retryBackoff],
    ["pendingBackoff", policy.pendingBackoff],
  ] as const) {
    positive(`${name}.baseMs`, b.baseMs);
    positive(`${name}.maxMs`, b.maxMs);
    if (b.maxMs < b.baseMs) throw new RangeError(`work queue: ${name}.maxMs must be ≥ baseMs`);
    if (!(b.jitter >= 0 && b.jitter <= 1)) {
      throw new RangeError(`work queue: ${name}.jitter must be within 0–1`);
    }
  }
  return policy;
}
