import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  POD_SECURITY_LABELS,
  currentManagedName,
  desiredManagedNamespace,
  managedNamespacePending,
  previousManagedName,
  verifyManagedNamespace,
  type ManagedNamespaceVerdict,
} from "../../../src/domain/index.js";
import {
  MEMBERSHIP,
  OTHER,
  ROUTING,
  TENANT,
  managed,
  namespace,
  without,
  withMetadata,
  FOREIGN_MARKERS,
  MANAGED_LABELS_AS_WRITTEN,
  violationKeys,
} from "./fixtures.js";

function checks(verdict: ManagedNamespaceVerdict): string[] {
  if (verdict.verdict !== "refused") throw new Error(`expected a refusal, got ${verdict.verdict}`);
  return violationKeys(verdict.violations);
}

describe("desiredManagedNamespace", () => {
  it("uses the current name and every managed marker, no lifecycle annotation", () => {
    expect(desiredManagedNamespace(TENANT, ROUTING)).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: "oce-89d99db2f971e50",
        labels: MANAGED_LABELS_AS_WRITTEN,
        annotations: { "openclaw.dev/namespace-id": TENANT },
      },
    });
  });

  it("without routing there is no membership label", () => {
    const labels = desiredManagedNamespace(TENANT, null).metadata?.labels ?? {};
    expect(Object.keys(labels)).not.toContain(LABELS.gatewayMembership);
  });
});

describe("verifyManagedNamespace", () => {
  it("a complete, Active managed namespace is usable with no write", () => {
    expect(verifyManagedNamespace(managed(TENANT), TENANT, null)).toEqual({
      verdict: "usable",
      uid: "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60",
      patch: null,
    });
  });

  it("the previous name form is accepted with the manager label", () => {
    const ns = managed(TENANT, { name: previousManagedName(TENANT) });
    expect(verifyManagedNamespace(ns, TENANT, null).verdict).toBe("usable");
  });

  it.each([
    ["current", currentManagedName(TENANT)],
    ["previous", previousManagedName(TENANT)],
  ])("the %s name form without the manager label is refused", (_case, name) => {
    const ns = managed(TENANT, { name });
    const bare = withMetadata(
      ns,
      without(ns.metadata?.labels, LABELS.managedBy),
      ns.metadata?.annotations,
    );
    expect(checks(verifyManagedNamespace(bare, TENANT, null))).toEqual([
      `manager-label:${LABELS.managedBy}`,
    ]);
    const helm = withMetadata(
      ns,
      { ...ns.metadata?.labels, [LABELS.managedBy]: "Helm" },
      ns.metadata?.annotations,
    );
    expect(checks(verifyManagedNamespace(helm, TENANT, null))).toEqual([
      `manager-label:${LABELS.managedBy}`,
    ]);
  });

  it.each([
    ["an arbitrary name", "tenant-a"],
    ["another tenant's current name", currentManagedName(OTHER)],
    ["another tenant's previous name", previousManagedName(OTHER)],
  ])("%s is refused", (_case, name) => {
    expect(checks(verifyManagedNamespace(managed(TENANT, { name }), TENANT, null))).toEqual([
      "managed-name:",
    ]);
  });

  it("a namespace of the managed name without tenant markers is never taken over", () => {
    const ns = namespace({
      name: currentManagedName(TENANT),
      labels: { [LABELS.managedBy]: "openclaw-enterprise" },
    });
    const verdict = verifyManagedNamespace(ns, TENANT, null);
    expect(checks(verdict)).toEqual(["tenant-markers:"]);
    expect(verdict.verdict === "refused" && verdict.violations[0].code).toBe(
      "KUBERNETES_OWNERSHIP_CONFLICT",
    );
  });

  it.each([
    ["tenant label missing", LABELS.namespace, "label"],
    ["tenant annotation missing", ANNOTATIONS.namespaceId, "annotation"],
  ] as const)("partial markers (%s) are refused, naming the missing key", (_case, key, kind) => {
    const ns = managed(TENANT);
    const partial =
      kind === "label"
        ? withMetadata(ns, without(ns.metadata?.labels, key), ns.metadata?.annotations)
        : withMetadata(ns, ns.metadata?.labels, without(ns.metadata?.annotations, key));
    expect(checks(verifyManagedNamespace(partial, TENANT, null))).toEqual([
      `partial-marker:${key}`,
    ]);
  });

  it.each(FOREIGN_MARKERS)(
    "a foreign %s %s is refused without leaking the value",
    (_where, key, foreign) => {
      const ns = managed(TENANT, foreign);
      const verdict = verifyManagedNamespace(ns, TENANT, null);
      expect(checks(verdict)).toEqual([`foreign-marker:${key}`]);
      expect(JSON.stringify(verdict)).not.toContain(OTHER);
    },
  );

  it.each([
    ["external", "explicit-selection"],
    ["preprovisioned", "lifecycle"],
    ["", "lifecycle"],
  ])("a lifecycle annotation %j is refused (%s)", (value, check) => {
    const ns = managed(TENANT, { annotations: { [ANNOTATIONS.lifecycle]: value } });
    expect(checks(verifyManagedNamespace(ns, TENANT, null))).toEqual([
      `${check}:${ANNOTATIONS.lifecycle}`,
    ]);
  });

  it.each([
    [
      "terminating",
      { deletionTimestamp: "2026-01-01T00:00:00Z" },
      "the managed namespace is terminating; it will be recreated once it is gone",
    ],
    ["not Active", { phase: "Terminating" }, "the managed namespace is not Active yet"],
    ["no phase yet", { phase: "" }, "the managed namespace is not Active yet"],
  ])("%s → pending", (_case, shape, reason) => {
    expect(verifyManagedNamespace(managed(TENANT, shape), TENANT, null)).toEqual({
      verdict: "pending",
      result: { outcome: "pending", code: "KUBERNETES_NAMESPACE_PENDING", reason },
    });
  });

  it("terminating while its UID is recorded (bound, or pending since OCC created it) → pending that names the administrator's retry, not a recreate", () => {
    const verdict = verifyManagedNamespace(
      managed(TENANT, { deletionTimestamp: "2026-01-01T00:00:00Z" }),
      TENANT,
      null,
      true,
    );
    expect(verdict.verdict === "pending" && verdict.result).toMatchObject({
      outcome: "pending",
      code: "KUBERNETES_NAMESPACE_PENDING",
    });
    const reason = verdict.verdict === "pending" ? verdict.result.reason : "";
    expect(reason).toContain("an administrator's retry recreates it");
    expect(reason).not.toContain("it will be recreated once it is gone");
  });

  it.each(POD_SECURITY_LABELS.map((key) => [key]))(
    "Pod Security label %s not restricted → patched by OCC",
    (key) => {
      const ns = managed(TENANT, { labels: { [key]: "privileged" } });
      const verdict = verifyManagedNamespace(ns, TENANT, null);
      expect(verdict.verdict === "usable" && verdict.patch).toEqual({
        resourceVersion: "4711",
        labels: desiredManagedNamespace(TENANT, null).metadata?.labels,
        annotations: { [ANNOTATIONS.namespaceId]: TENANT },
      });
    },
  );

  it("gateway routing configured later → the membership label is patched in", () => {
    const verdict = verifyManagedNamespace(managed(TENANT), TENANT, ROUTING);
    expect(verdict.verdict === "usable" && verdict.patch?.labels[LABELS.gatewayMembership]).toBe(
      MEMBERSHIP,
    );
  });

  it("a missing gateway-namespace label is patched in", () => {
    const ns = managed(TENANT);
    const bare = withMetadata(
      ns,
      without(ns.metadata?.labels, LABELS.gatewayNamespace),
      ns.metadata?.annotations,
    );
    const verdict = verifyManagedNamespace(bare, TENANT, null);
    expect(verdict.verdict === "usable" && verdict.patch?.labels[LABELS.gatewayNamespace]).toBe(
      TENANT,
    );
  });

  it("lists every problem together", () => {
    const ns = namespace({
      name: "wrong",
      labels: { [LABELS.namespace]: TENANT },
      annotations: { [ANNOTATIONS.lifecycle]: "external" },
    });
    expect(checks(verifyManagedNamespace(ns, TENANT, null))).toEqual([
      `partial-marker:${ANNOTATIONS.namespaceId}`,
      `explicit-selection:${ANNOTATIONS.lifecycle}`,
      `manager-label:${LABELS.managedBy}`,
      "managed-name:",
    ]);
  });

  it("managedNamespacePending builds the pending result", () => {
    expect(managedNamespacePending("created; waiting")).toEqual({
      outcome: "pending",
      code: "KUBERNETES_NAMESPACE_PENDING",
      reason: "created; waiting",
    });
  });
});
