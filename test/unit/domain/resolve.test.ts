import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  POD_SECURITY_LABELS,
  currentManagedName,
  previousManagedName,
  resolveClaimants,
  resolveForPlacement,
  uidPinViolation,
  type Resolution,
} from "../../../src/domain/index.js";
import {
  OTHER,
  TENANT,
  boundExternal,
  managed,
  namespace,
  without,
  withMetadata,
  violationKeys,
} from "./fixtures.js";

function refusedChecks(resolution: Resolution): string[] {
  if (resolution.kind !== "refused") throw new Error(`expected a refusal, got ${resolution.kind}`);
  return violationKeys(resolution.violations);
}

describe("resolveClaimants (§3)", () => {
  it("none → the current managed name (which may not exist yet)", () => {
    expect(resolveClaimants(TENANT, [])).toEqual({
      kind: "unclaimed",
      name: "oce-89d99db2f971e50",
    });
  });

  it("more than one → conflict naming this tenant only", () => {
    const resolution = resolveClaimants(TENANT, [
      managed(TENANT),
      boundExternal(TENANT, false, { name: "team-x" }),
    ]);
    expect(resolution).toEqual({
      kind: "refused",
      violations: [
        {
          check: "exclusive-claim",
          code: "KUBERNETES_OWNERSHIP_CONFLICT",
          key: LABELS.namespace,
          message: `multiple Kubernetes namespaces claim tenant ${TENANT}`,
        },
      ],
    });
    expect(JSON.stringify(resolution)).not.toContain("team-x");
  });

  it("one managed claimant with the current name", () => {
    const ns = managed(TENANT);
    expect(resolveClaimants(TENANT, [ns])).toEqual({
      kind: "claimed",
      mode: "managed",
      name: currentManagedName(TENANT),
      namespace: ns,
    });
  });

  it("one managed claimant with the previous name and the manager label", () => {
    const ns = managed(TENANT, { name: previousManagedName(TENANT) });
    expect(resolveClaimants(TENANT, [ns])).toMatchObject({
      kind: "claimed",
      mode: "managed",
      name: previousManagedName(TENANT),
    });
  });

  it("the previous name without the manager label is refused", () => {
    const ns = managed(TENANT, { name: previousManagedName(TENANT) });
    const bare = withMetadata(
      ns,
      without(ns.metadata?.labels, LABELS.managedBy),
      ns.metadata?.annotations,
    );
    expect(refusedChecks(resolveClaimants(TENANT, [bare]))).toEqual([
      `manager-label:${LABELS.managedBy}`,
    ]);
  });

  it("a managed claimant with any other name is refused — no fallback", () => {
    expect(refusedChecks(resolveClaimants(TENANT, [managed(TENANT, { name: "team-x" })]))).toEqual([
      "managed-name:",
    ]);
  });

  it("one external claimant that is restricted and Active", () => {
    const ns = boundExternal(TENANT, false, { name: "team-x" });
    expect(resolveClaimants(TENANT, [ns])).toEqual({
      kind: "claimed",
      mode: "external",
      name: "team-x",
      namespace: ns,
    });
  });

  it("an external claimant needs no manager label and may have any name", () => {
    const ns = boundExternal(TENANT, false, {
      name: "anything",
      labels: { [LABELS.managedBy]: "Helm" },
    });
    expect(resolveClaimants(TENANT, [ns]).kind).toBe("claimed");
  });

  it.each(POD_SECURITY_LABELS.map((key) => [key]))(
    "an external claimant with %s not restricted is refused",
    (key) => {
      const ns = boundExternal(TENANT, false, { labels: { [key]: "baseline" } });
      expect(refusedChecks(resolveClaimants(TENANT, [ns]))).toEqual([`pod-security:${key}`]);
    },
  );

  it.each([
    ["terminating", { deletionTimestamp: "2026-01-01T00:00:00Z" }, "terminating:"],
    ["not Active", { phase: "Terminating" }, "active:"],
  ])("an external claimant that is %s is refused", (_case, shape, check) => {
    const resolution = resolveClaimants(TENANT, [boundExternal(TENANT, false, shape)]);
    expect(refusedChecks(resolution)).toEqual([check]);
    expect(resolution.kind === "refused" && resolution.violations[0].code).toBe(
      "KUBERNETES_NAMESPACE_INACTIVE",
    );
  });

  it.each([
    [
      "missing tenant annotation",
      "partial-marker:openclaw.dev/namespace-id",
      (ns: ReturnType<typeof managed>) =>
        withMetadata(
          ns,
          ns.metadata?.labels,
          without(ns.metadata?.annotations, ANNOTATIONS.namespaceId),
        ),
    ],
    [
      "foreign tenant annotation",
      "foreign-marker:openclaw.dev/namespace-id",
      (ns: ReturnType<typeof managed>) =>
        withMetadata(ns, ns.metadata?.labels, { [ANNOTATIONS.namespaceId]: OTHER }),
    ],
    [
      "foreign gateway-namespace label",
      "foreign-marker:openclaw.dev/gateway-namespace",
      (ns: ReturnType<typeof managed>) =>
        withMetadata(
          ns,
          { ...ns.metadata?.labels, [LABELS.gatewayNamespace]: OTHER },
          ns.metadata?.annotations,
        ),
    ],
  ])("a claimant with a %s is refused", (_case, check, mutate) => {
    const resolution = resolveClaimants(TENANT, [mutate(managed(TENANT))]);
    expect(refusedChecks(resolution)).toEqual([check]);
    expect(JSON.stringify(resolution)).not.toContain(OTHER);
  });

  it("a claimant with neither marker (a list that ignored the selector) is refused", () => {
    expect(
      refusedChecks(resolveClaimants(TENANT, [namespace({ name: currentManagedName(TENANT) })])),
    ).toContain("tenant-markers:");
  });

  it("a claimant with lifecycle preprovisioned is refused", () => {
    const ns = managed(TENANT, { annotations: { [ANNOTATIONS.lifecycle]: "preprovisioned" } });
    expect(refusedChecks(resolveClaimants(TENANT, [ns]))).toEqual([
      `lifecycle:${ANNOTATIONS.lifecycle}`,
    ]);
  });
});

describe("resolveForPlacement", () => {
  const external = { mode: "external", existingNamespace: "team-x" } as const;

  it("managed placement: an external claimant was not explicitly selected", () => {
    const resolution = resolveForPlacement({ mode: "managed" }, TENANT, [
      boundExternal(TENANT, false, { name: "team-x" }),
    ]);
    expect(refusedChecks(resolution)).toEqual(["explicit-selection:"]);
    expect(resolution.kind === "refused" && resolution.violations[0].message).toContain(
      "was not explicitly selected",
    );
  });

  it("managed placement: managed claimant or none pass through", () => {
    expect(resolveForPlacement({ mode: "managed" }, TENANT, []).kind).toBe("unclaimed");
    expect(resolveForPlacement({ mode: "managed" }, TENANT, [managed(TENANT)]).kind).toBe(
      "claimed",
    );
  });

  it("external placement: the selected, bound namespace resolves", () => {
    const ns = boundExternal(TENANT, false, { name: "team-x" });
    expect(resolveForPlacement(external, TENANT, [ns])).toMatchObject({
      kind: "claimed",
      name: "team-x",
    });
  });

  it("external placement: no claimant → refused, never the managed name", () => {
    expect(refusedChecks(resolveForPlacement(external, TENANT, []))).toEqual(["tenant-markers:"]);
  });

  it.each([
    ["another external namespace", boundExternal(TENANT, false, { name: "team-y" })],
    ["a managed namespace", managed(TENANT)],
  ])("external placement: %s claiming the tenant → refused", (_case, ns) => {
    expect(refusedChecks(resolveForPlacement(external, TENANT, [ns]))).toEqual([
      `exclusive-claim:${LABELS.namespace}`,
    ]);
  });

  it("refusals of resolution pass through", () => {
    expect(
      refusedChecks(resolveForPlacement(external, TENANT, [managed(TENANT), managed(TENANT)])),
    ).toEqual([`exclusive-claim:${LABELS.namespace}`]);
  });
});

describe("uidPinViolation", () => {
  it.each([
    ["nothing recorded", null, "u1", false],
    ["same UID", "u1", "u1", false],
    ["different UID (recreated)", "u1", "u2", true],
    ["no observed UID", "u1", "", true],
  ])("%s", (_case, recorded, observed, conflict) => {
    const found = uidPinViolation(recorded, namespace({ uid: observed }));
    if (!conflict) {
      expect(found).toBeNull();
      return;
    }
    expect(found).toEqual({
      check: "uid",
      code: "KUBERNETES_NAMESPACE_REPLACED",
      key: null,
      message:
        "the bound Kubernetes namespace was deleted and recreated (metadata.uid changed); OCC will not use the new one until an administrator retries",
    });
  });
});
