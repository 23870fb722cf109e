import { describe, expect, it } from "vitest";
import {
  OUTCOME_CODES,
  deleted,
  failed,
  isOutcomeCode,
  notDone,
  outcomeClassOf,
  pending,
  ready,
} from "../../../src/domain/index.js";

describe("outcome codes", () => {
  it("is the closed §7 vocabulary plus the pending code for converging namespaces and the replaced-namespace code of the lifecycle", () => {
    expect(OUTCOME_CODES).toEqual([
      "KUBERNETES_OWNERSHIP_CONFLICT",
      "KUBERNETES_NAMESPACE_MISSING",
      "KUBERNETES_NAMESPACE_REPLACED",
      "KUBERNETES_NAMESPACE_INACTIVE",
      "KUBERNETES_NAMESPACE_PENDING",
      "KUBERNETES_PERMISSION_PENDING",
      "KUBERNETES_CONFLICT",
      "KUBERNETES_API_UNAVAILABLE",
      "KUBERNETES_API_TIMEOUT",
      "KUBERNETES_API_REJECTED",
      "CONFIGURATION_INVALID",
      "SANDBOX_GATEWAY_UNAVAILABLE",
      "SANDBOX_GATEWAY_REJECTED",
      "SANDBOX_WORKSPACE_PENDING",
    ]);
  });

  it.each([
    ["KUBERNETES_OWNERSHIP_CONFLICT", "permanent"],
    ["KUBERNETES_NAMESPACE_MISSING", "permanent"],
    ["KUBERNETES_NAMESPACE_REPLACED", "permanent"],
    ["KUBERNETES_NAMESPACE_INACTIVE", "permanent"],
    ["KUBERNETES_NAMESPACE_PENDING", "pending"],
    ["KUBERNETES_PERMISSION_PENDING", "pending"],
    ["KUBERNETES_CONFLICT", "retryable"],
    ["KUBERNETES_API_UNAVAILABLE", "retryable"],
    ["KUBERNETES_API_TIMEOUT", "retryable"],
    ["KUBERNETES_API_REJECTED", "permanent"],
    ["CONFIGURATION_INVALID", "permanent"],
    ["SANDBOX_GATEWAY_UNAVAILABLE", "retryable"],
    ["SANDBOX_GATEWAY_REJECTED", "permanent"],
    ["SANDBOX_WORKSPACE_PENDING", "pending"],
  ] as const)("%s is %s", (code, outcomeClass) => {
    expect(outcomeClassOf(code)).toBe(outcomeClass);
    const result = notDone(code, "why");
    if (outcomeClass === "pending") {
      expect(result).toEqual({ outcome: "pending", code, reason: "why" });
    } else {
      expect(result).toEqual({
        outcome: "failed",
        code,
        reason: "why",
        retryable: outcomeClass === "retryable",
      });
    }
  });

  it("recognises codes and nothing else", () => {
    expect(isOutcomeCode("KUBERNETES_CONFLICT")).toBe(true);
    expect(isOutcomeCode("kubernetes_conflict")).toBe(false);
    expect(isOutcomeCode("toString")).toBe(false);
    expect(isOutcomeCode(1)).toBe(false);
  });
});

describe("result builders", () => {
  it("ready and deleted", () => {
    expect(ready("uid-1", "oce-89d99db2f971e50")).toEqual({
      outcome: "ready",
      uid: "uid-1",
      namespaceName: "oce-89d99db2f971e50",
    });
    expect(deleted()).toEqual({ outcome: "deleted" });
  });

  it("sanitizes and redacts the reason", () => {
    const result = notDone("KUBERNETES_CONFLICT", "line1\nline2 about ns_secret", ["ns_secret"]);
    expect(result.reason).toBe("line1 line2 about [redacted]");
    expect(pending("KUBERNETES_PERMISSION_PENDING", "x".repeat(300)).reason).toHaveLength(256);
    expect(failed("KUBERNETES_API_TIMEOUT", "t")).toEqual({
      outcome: "failed",
      code: "KUBERNETES_API_TIMEOUT",
      reason: "t",
      retryable: true,
    });
  });
});
