/**
 * A token bucket by reservation, as a pure function of the clock: `burst` tokens at most,
 * refilled at `qps` per second. Each request takes one token at once — the balance may go
 * below zero — and waits until the refill has paid its token back, so requests are served in
 * the order they asked and none can starve. The caller keeps the state and sleeps `waitMs`.
 */
export interface RateLimit {
  /** Sustained requests per second (> 0). */
  readonly qps: number;
  /** Requests that may go at once after an idle period (≥ 1). */
  readonly burst: number;
}

export interface BucketState {
  /** Tokens at `atMs` (negative: reserved ahead of the refill). */
  readonly tokens: number;
  readonly atMs: number;
}

export interface Reservation {
  readonly state: BucketState;
  /** How long the request waits for its token (0 when one was in the bucket). */
  readonly waitMs: number;
}

/** A full bucket at `nowMs`. */
export function fullBucket(limit: RateLimit, nowMs: number): BucketState {
  return { tokens: limit.burst, atMs: nowMs };
}

/** Takes one token at `nowMs`: the new state, and the wait before the request may be sent. */
export function reserveToken(limit: RateLimit, state: BucketState, nowMs: number): Reservation {
  // A clock that went backwards refills nothing (and never un-refills).
  const elapsedMs = Math.max(0, nowMs - state.atMs);
  const refilled = Math.min(limit.burst, state.tokens + (elapsedMs * limit.qps) / 1000);
  const tokens = refilled - 1;
  const waitMs = tokens >= 0 ? 0 : (-tokens * 1000) / limit.qps;
  return { state: { tokens, atMs: Math.max(nowMs, state.atMs) }, waitMs };
}
