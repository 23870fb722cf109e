import { describe, expect, it } from "vitest";
import {
  backoffDelayMs,
  DEFAULT_WORK_QUEUE_POLICY,
  validatePolicy,
  type BackoffPolicy,
} from "../../../src/queue/policy.js";

const retry = DEFAULT_WORK_QUEUE_POLICY.retryBackoff;

describe("backoffDelayMs (spec: jittered exponential, 1 s … 300 s)", () => {
  it.each([
    // n, random, expected ms
    [1, 0, 1_000],
    [1, 0.999999, 1_500],
    [2, 0, 2_000],
    [3, 0.5, 5_000],
    [5, 0, 16_000],
    [9, 0, 256_000],
    [9, 0.999999, 300_000], // 256 s stretched by 50 % is capped at 300 s
    [10, 0, 300_000],
    [40, 0.5, 300_000],
    [2_000, 0.3, 300_000], // 2^1999 is Infinity; the cap still applies
  ])("attempt %i with random %f waits %i ms", (n, random, expected) => {
    expect(backoffDelayMs(n, retry, () => random)).toBe(expected);
  });

  it("never leaves [base, max] for any attempt and random value", () => {
    const policy: BackoffPolicy = { baseMs: 1_000, maxMs: 300_000, jitter: 1 };
    for (let n = 1; n <= 60; n += 1) {
      for (const r of [0, 0.25, 0.5, 0.75, 0.999999]) {
        const d = backoffDelayMs(n, policy, () => r);
        expect(d).toBeGreaterThanOrEqual(1_000);
        expect(d).toBeLessThanOrEqual(300_000);
      }
    }
  });

  it("grows monotonically with the attempt at a fixed random value", () => {
    const delays = Array.from({ length: 12 }, (_, i) => backoffDelayMs(i + 1, retry, () => 0.3));
    for (let i = 1; i < delays.length; i += 1) {
      expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] ?? 0);
    }
  });

  it("treats attempt 0 or below like the first", () => {
    expect(backoffDelayMs(0, retry, () => 0)).toBe(1_000);
  });
});

describe("validatePolicy", () => {
  it("accepts the defaults (5 attempts, 15 s lease, 15 min deadline)", () => {
    expect(validatePolicy(DEFAULT_WORK_QUEUE_POLICY)).toMatchObject({
      maxAttempts: 5,
      leaseMs: 15_000,
      convergenceMs: 900_000,
    });
  });

  it.each([
    [{ maxAttempts: 0 }, /maxAttempts/],
    [{ maxAttempts: 1.5 }, /maxAttempts/],
    [{ leaseMs: 0 }, /leaseMs/],
    [{ convergenceMs: -1 }, /convergenceMs/],
    [{ retryBackoff: { baseMs: 10, maxMs: 5, jitter: 0 } }, /retryBackoff\.maxMs/],
    [{ pendingBackoff: { baseMs: 1, maxMs: 5, jitter: 2 } }, /pendingBackoff\.jitter/],
  ])("refuses %j naming the field", (override, message) => {
    expect(() => validatePolicy({ ...DEFAULT_WORK_QUEUE_POLICY, ...override })).toThrow(message);
  });
});
