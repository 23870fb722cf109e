/**
 * The later steps of binding an external namespace (placement.md §4.2 steps 3, 6, 7 and 8):
 * the exclusive claim, foreign policies, the 409 re-read and the bound check. The first
 * verification (adoptable or refused) is in external-namespace.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  decideAfterBindingConflict,
  exclusiveClaimViolation,
  foreignPolicyViolation,
  tenantOwnershipMarkers,
  verifyBoundExternalNamespace,
  type K8sNamespace,
} from "../../../src/domain/index.js";
import { OTHER, ROUTING, TENANT, boundExternal, namespace, preparedExternal } from "./fixtures.js";

describe("exclusiveClaimViolation (§4.2 step 3)", () => {
  const selected = namespace({ name: "customer-support-prod" });
  const elsewhere = namespace({ name: "secret-other-team" });

  it.each([
    ["no claimant", [] as K8sNamespace[]],
    ["only the selected namespace", [selected]],
  ])("%s → none", (_case, claimants) => {
    expect(exclusiveClaimViolation(claimants, "customer-support-prod", TENANT)).toBeNull();
  });

  it.each([
    ["another namespace", [elsewhere]],
    ["the selected one and another", [selected, elsewhere]],
  ])("%s → conflict that names the tenant but not the other namespace", (_case, claimants) => {
    const found = exclusiveClaimViolation(claimants, "customer-support-prod", TENANT);
    expect(found?.code).toBe("KUBERNETES_OWNERSHIP_CONFLICT");
    expect(found?.check).toBe("exclusive-claim");
    expect(found?.message).toContain(TENANT);
    expect(found?.message).not.toContain("secret-other-team");
  });
});

describe("foreignPolicyViolation (§4.2 step 6)", () => {
  const ours = tenantOwnershipMarkers(TENANT);
  const owned = {
    metadata: { name: "default-deny", labels: ours.labels, annotations: ours.annotations },
  };
  const allowAll = { metadata: { name: "operator-allow-all" } };
  const otherTenant = {
    metadata: {
      name: "default-deny",
      labels: { ...ours.labels, [LABELS.namespace]: OTHER },
      annotations: { [ANNOTATIONS.namespaceId]: OTHER },
    },
  };

  it("no policies, or only this tenant's → none", () => {
    expect(foreignPolicyViolation([], TENANT)).toBeNull();
    expect(foreignPolicyViolation([owned, owned], TENANT)).toBeNull();
  });

  it.each([
    ["an operator allow-all", [owned, allowAll], 1],
    ["another tenant's policy", [otherTenant], 1],
    ["both", [allowAll, otherTenant, owned], 2],
  ])("%s → additive-policy conflict with a count, no names", (_case, policies, count) => {
    const found = foreignPolicyViolation(policies, TENANT);
    expect(found).toEqual({
      check: "network-policies",
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      key: null,
      message: `the namespace holds ${count} NetworkPolicy object(s) not owned by this tenant; additive policies would widen isolation — remove them before adoption`,
    });
    expect(found?.message).not.toContain("operator-allow-all");
    expect(found?.message).not.toContain(OTHER);
  });
});

describe("decideAfterBindingConflict (§4.2 step 7, on 409)", () => {
  it("gone on re-read → permanent missing", () => {
    expect(decideAfterBindingConflict(null, TENANT, null)).toMatchObject({
      outcome: "failed",
      code: "KUBERNETES_NAMESPACE_MISSING",
      retryable: false,
    });
  });

  it("claimed by another tenant meanwhile → permanent conflict without the foreign ID", () => {
    const result = decideAfterBindingConflict(boundExternal(OTHER, false), TENANT, null);
    expect(result).toMatchObject({
      outcome: "failed",
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      retryable: false,
    });
    expect(JSON.stringify(result)).not.toContain(OTHER);
  });

  it("a lost requirement (Pod Security relaxed) → permanent", () => {
    const ns = preparedExternal({ labels: { [LABELS.podSecurityWarn]: "baseline" } });
    expect(decideAfterBindingConflict(ns, TENANT, null)).toMatchObject({
      outcome: "failed",
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
    });
  });

  it("completed by a concurrent pass → bound", () => {
    expect(decideAfterBindingConflict(boundExternal(TENANT, true), TENANT, ROUTING)).toEqual({
      outcome: "bound",
    });
  });

  it("an unrelated change → retryable KUBERNETES_CONFLICT", () => {
    expect(
      decideAfterBindingConflict(preparedExternal({ resourceVersion: "4712" }), TENANT, null),
    ).toEqual({
      outcome: "failed",
      code: "KUBERNETES_CONFLICT",
      reason: "the namespace changed while it was being bound; the binding will be retried",
      retryable: true,
    });
  });
});

describe("verifyBoundExternalNamespace (§4.2 step 8)", () => {
  it("bound → the UID to record", () => {
    expect(
      verifyBoundExternalNamespace(boundExternal(TENANT, false, { uid: "u-9" }), TENANT, null),
    ).toEqual({
      outcome: "bound",
      uid: "u-9",
    });
  });

  it("binding not visible → retryable", () => {
    expect(verifyBoundExternalNamespace(preparedExternal(), TENANT, null)).toMatchObject({
      outcome: "failed",
      code: "KUBERNETES_CONFLICT",
      retryable: true,
    });
  });

  it("terminating after binding → permanent inactive", () => {
    const ns = boundExternal(TENANT, false, { deletionTimestamp: "2026-01-01T00:00:00Z" });
    expect(verifyBoundExternalNamespace(ns, TENANT, null)).toMatchObject({
      outcome: "failed",
      code: "KUBERNETES_NAMESPACE_INACTIVE",
      retryable: false,
    });
  });
});
