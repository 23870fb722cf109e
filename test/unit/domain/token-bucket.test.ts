import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  fullBucket,
  reserveToken,
  type BucketState,
  type RateLimit,
} from "../../../src/domain/index.js";

/**
 * The waits of requests asked at `times` (ms), from a full bucket at 0; rounded to the
 * microsecond for the tables, exact for the property (rounding would add up to 0.5 µs per send,
 * more than the property's tolerance at a high rate).
 */
function waits(limit: RateLimit, times: readonly number[], exact = false): number[] {
  let state: BucketState = fullBucket(limit, 0);
  return times.map((t) => {
    const r = reserveToken(limit, state, t);
    state = r.state;
    return exact ? r.waitMs : Math.round(r.waitMs * 1000) / 1000;
  });
}

describe("reserveToken", () => {
  it.each([
    ["a burst within the bucket goes at once", { qps: 10, burst: 3 }, [0, 0, 0], [0, 0, 0]],
    [
      "past the burst, each request waits one more refill (100 ms at 10/s)",
      { qps: 10, burst: 2 },
      [0, 0, 0, 0, 0],
      [0, 0, 100, 200, 300],
    ],
    [
      "time that passed refills what it paid for",
      { qps: 10, burst: 1 },
      [0, 50, 100, 300],
      [0, 50, 100, 0],
    ],
    [
      "an idle bucket refills to burst, never beyond",
      { qps: 100, burst: 2 },
      [0, 0, 10_000, 10_000, 10_000],
      [0, 0, 0, 0, 10],
    ],
    [
      "a fractional rate (0.5/s): 2 s per token",
      { qps: 0.5, burst: 1 },
      [0, 0, 0],
      [0, 2000, 4000],
    ],
    [
      "a clock that went backwards refills nothing",
      { qps: 10, burst: 1 },
      [1000, 900, 900],
      [0, 100, 200],
    ],
  ] as const)("%s", (_name, limit, times, expected) => {
    expect(waits(limit, times)).toEqual(expected);
  });

  it("never lets more than burst + qps × t requests go within t (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 1, maxLength: 200 }),
        (qps, burst, gaps) => {
          const limit = { qps, burst };
          let now = 0;
          const asked = gaps.map((g) => (now += g));
          const sent = waits(limit, asked, true).map((w, i) => (asked[i] ?? 0) + w);
          // Sends are in order, and any window [a, b] holds at most burst + qps × (b - a).
          for (let i = 0; i < sent.length; i++) {
            for (let j = i; j < sent.length; j++) {
              const span = (sent[j] ?? 0) - (sent[i] ?? 0);
              expect(span).toBeGreaterThanOrEqual(-1e-6);
              expect(j - i + 1).toBeLessThanOrEqual(burst + (qps * span) / 1000 + 1e-6);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
