import { describe, expect, it } from "vitest";
import {
  codeForKubernetesFailure,
  isRetryableRead,
  outcomeClassOf,
  type KubernetesFailure,
} from "../../../src/domain/index.js";

const status = (code: number): KubernetesFailure => ({ kind: "status", status: code });

describe("codeForKubernetesFailure", () => {
  it.each([
    [status(403), "before-verification", "KUBERNETES_API_REJECTED", "permanent"],
    [status(403), "after-verification", "KUBERNETES_PERMISSION_PENDING", "pending"],
    [status(409), "after-verification", "KUBERNETES_CONFLICT", "retryable"],
    [status(429), "before-verification", "KUBERNETES_API_UNAVAILABLE", "retryable"],
    [status(500), "after-verification", "KUBERNETES_API_UNAVAILABLE", "retryable"],
    [status(503), "before-verification", "KUBERNETES_API_UNAVAILABLE", "retryable"],
    [status(400), "after-verification", "KUBERNETES_API_REJECTED", "permanent"],
    [status(401), "after-verification", "KUBERNETES_API_REJECTED", "permanent"],
    [status(404), "after-verification", "KUBERNETES_API_REJECTED", "permanent"],
    [status(422), "after-verification", "KUBERNETES_API_REJECTED", "permanent"],
    [{ kind: "timeout" }, "after-verification", "KUBERNETES_API_TIMEOUT", "retryable"],
    [{ kind: "network" }, "before-verification", "KUBERNETES_API_UNAVAILABLE", "retryable"],
  ] as const)("%j %s → %s (%s)", (failure, stage, code, outcomeClass) => {
    const found = codeForKubernetesFailure(failure, stage);
    expect(found).toBe(code);
    expect(outcomeClassOf(found)).toBe(outcomeClass);
  });
});

describe("isRetryableRead", () => {
  it.each([
    [status(429), true],
    [status(500), true],
    [status(504), true],
    [{ kind: "network" }, true],
    [status(403), false],
    [status(404), false],
    [status(409), false],
    [{ kind: "timeout" }, false],
  ] as const)("%j → %s", (failure, expected) => {
    expect(isRetryableRead(failure)).toBe(expected);
  });
});
