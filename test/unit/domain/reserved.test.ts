import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isDns1123Label, validateExistingNamespace } from "../../../src/domain/index.js";

const CONTROLLER = "openclaw-system";

describe("validateExistingNamespace (§8)", () => {
  it.each([
    "customer-support-prod",
    "team-a",
    "a",
    "x".repeat(63),
    "kube",
    "openshiftx",
    "oce",
    "ocean-1",
    "default-2",
  ])("accepts %s", (value) => {
    expect(validateExistingNamespace(value, CONTROLLER)).toEqual({ ok: true, value });
  });

  it.each([
    ["", "not-dns-label"],
    ["Team-A", "not-dns-label"],
    ["team_a", "not-dns-label"],
    ["-team", "not-dns-label"],
    ["a.b", "not-dns-label"],
    ["x".repeat(64), "not-dns-label"],
    ["default", "reserved-kubernetes"],
    ["kube-system", "reserved-kubernetes"],
    ["kube-public", "reserved-kubernetes"],
    ["kube-node-lease", "reserved-kubernetes"],
    ["kube-anything", "reserved-kubernetes"],
    ["openshift", "reserved-openshift"],
    ["openshift-monitoring", "reserved-openshift"],
    ["openclaw-system", "reserved-controller"],
    ["oce-89d99db2f971e50", "reserved-managed"],
    ["oce-anything", "reserved-managed"],
  ])("refuses %j (%s)", (value, rejection) => {
    const result = validateExistingNamespace(value, CONTROLLER);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.rejection).toBe(rejection);
      expect(result.error.message.startsWith("existingNamespace")).toBe(true);
    }
  });

  it("messages name the field and the fix", () => {
    const messages = ["Bad", "kube-system", "openshift-x", "openclaw-system", "oce-x"].map(
      (value) => {
        const result = validateExistingNamespace(value, CONTROLLER);
        return result.ok ? "" : result.error.message;
      },
    );
    expect(messages).toEqual([
      "existingNamespace must be a DNS-1123 label: 1 to 63 lowercase letters, digits or '-', starting and ending with a letter or digit",
      'existingNamespace "kube-system" is reserved for Kubernetes itself; select an operator-owned namespace prepared for this tenant',
      'existingNamespace "openshift-x" is reserved for OpenShift; select an operator-owned namespace prepared for this tenant',
      'existingNamespace "openclaw-system" is the namespace the OCC controller runs in; select an operator-owned namespace prepared for this tenant',
      'existingNamespace "oce-x" has the managed form oce-*; omit existingNamespace for a managed namespace, or select an operator-owned namespace prepared for this tenant',
    ]);
  });

  it("refuses non-strings", () => {
    expect(validateExistingNamespace(42, CONTROLLER).ok).toBe(false);
    expect(validateExistingNamespace(null, CONTROLLER).ok).toBe(false);
  });

  it("property: whatever is accepted is a DNS label outside every reserved range", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[a-z0-9-]{1,70}$/)), (value) => {
        const result = validateExistingNamespace(value, CONTROLLER);
        if (!result.ok) return;
        expect(isDns1123Label(result.value)).toBe(true);
        expect(/^(kube-|openshift-|oce-)/.test(result.value)).toBe(false);
        expect(["default", "openshift", CONTROLLER]).not.toContain(result.value);
      }),
      { numRuns: 2000 },
    );
  });
});
