import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  PREPROVISIONED_DELETION_REFUSAL,
  decideNamespaceDeletion,
  deletionPending,
  previousManagedName,
  type K8sNamespace,
  type NamespaceDeletionDecision,
  type Placement,
} from "../../../src/domain/index.js";
import {
  FOREIGN_MARKERS,
  OTHER,
  TENANT,
  boundExternal,
  managed,
  preparedExternal,
  without,
  withMetadata,
} from "./fixtures.js";

const EXTERNAL: Placement = { mode: "external", existingNamespace: "customer-support-prod" };
const MANAGED: Placement = { mode: "managed" };
const PREPROVISIONED: Placement = { mode: "preprovisioned" };
const UID = "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60";

function decide(
  placement: Placement,
  observed: K8sNamespace | null,
  recordedUid: string | null = UID,
): NamespaceDeletionDecision {
  return decideNamespaceDeletion({ placement, tenantId: TENANT, observed, recordedUid });
}

function failure(decision: NamespaceDeletionDecision): {
  code: string;
  retryable: boolean;
  reason: string;
} {
  if (decision.decision !== "finished" || decision.result.outcome !== "failed") {
    throw new Error(`expected a failure, got ${JSON.stringify(decision)}`);
  }
  return {
    code: decision.result.code,
    retryable: decision.result.retryable,
    reason: decision.result.reason,
  };
}

describe("decideNamespaceDeletion: every mode", () => {
  it.each([EXTERNAL, MANAGED, PREPROVISIONED])(
    "already missing counts as deleted (%j)",
    (placement) => {
      expect(decide(placement, null)).toEqual({
        decision: "finished",
        result: { outcome: "deleted" },
      });
    },
  );

  it("preprovisioned is refused permanently with the operator message", () => {
    expect(failure(decide(PREPROVISIONED, managed(TENANT)))).toEqual({
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      retryable: false,
      reason: PREPROVISIONED_DELETION_REFUSAL,
    });
    expect(PREPROVISIONED_DELETION_REFUSAL).toBe(
      "The operator retains the preprovisioned Namespace and owns its teardown.",
    );
  });
});

describe("decideNamespaceDeletion: external", () => {
  it("a never-bound selection → deleted with no write", () => {
    expect(decide(EXTERNAL, preparedExternal(), null)).toEqual({
      decision: "finished",
      result: { outcome: "deleted" },
    });
  });

  it("a never-bound selection is deleted even when it is broken (not restricted, terminating)", () => {
    const broken = preparedExternal({
      labels: { [LABELS.podSecurityEnforce]: "privileged" },
      deletionTimestamp: "2026-01-01T00:00:00Z",
    });
    expect(decide(EXTERNAL, broken, null)).toEqual({
      decision: "finished",
      result: { outcome: "deleted" },
    });
  });

  it("a bound namespace → delete the owned objects only, with the namespace UID", () => {
    expect(decide(EXTERNAL, boundExternal(TENANT, true))).toEqual({
      decision: "delete-owned-objects",
      namespaceName: "customer-support-prod",
      uid: UID,
    });
  });

  it("bound with nothing recorded (binding happened, recording did not) still deletes owned objects", () => {
    expect(decide(EXTERNAL, boundExternal(TENANT, false), null).decision).toBe(
      "delete-owned-objects",
    );
  });

  it.each([
    ["tenant label only", { [LABELS.namespace]: TENANT }, {}],
    ["tenant annotation only", {}, { [ANNOTATIONS.namespaceId]: TENANT }],
  ])("partial markers (%s) → permanent failure", (_case, labels, annotations) => {
    expect(failure(decide(EXTERNAL, preparedExternal({ labels, annotations })))).toMatchObject({
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      retryable: false,
    });
  });

  it.each(FOREIGN_MARKERS)(
    "a foreign %s %s → permanent failure without the foreign ID",
    (_where, key, foreign) => {
      const ns = boundExternal(TENANT, false, foreign);
      const result = failure(decide(EXTERNAL, ns));
      expect(result.code).toBe("KUBERNETES_OWNERSHIP_CONFLICT");
      expect(result.reason).toContain(key);
      expect(result.reason).not.toContain(OTHER);
    },
  );

  it("bound to another tenant entirely → permanent failure", () => {
    expect(failure(decide(EXTERNAL, boundExternal(OTHER, false))).code).toBe(
      "KUBERNETES_OWNERSHIP_CONFLICT",
    );
  });

  it("a recreated namespace (UID changed) → permanent failure", () => {
    expect(
      failure(decide(EXTERNAL, boundExternal(TENANT, false, { uid: "new-uid" }))),
    ).toMatchObject({
      code: "KUBERNETES_NAMESPACE_REPLACED",
      reason:
        "the bound Kubernetes namespace was deleted and recreated (metadata.uid changed); OCC will not use the new one until an administrator retries",
    });
  });

  it("terminating → pending", () => {
    const ns = boundExternal(TENANT, false, { deletionTimestamp: "2026-01-01T00:00:00Z" });
    expect(decide(EXTERNAL, ns)).toEqual({
      decision: "finished",
      result: {
        outcome: "pending",
        code: "KUBERNETES_NAMESPACE_PENDING",
        reason: "the namespace is terminating; waiting until it is gone",
      },
    });
  });

  it("a missing uid → retryable incomplete read", () => {
    expect(
      failure(decide(EXTERNAL, boundExternal(TENANT, false, { uid: "" }), null)),
    ).toMatchObject({
      code: "KUBERNETES_CONFLICT",
      retryable: true,
    });
  });
});

describe("decideNamespaceDeletion: managed", () => {
  it("an owned managed namespace → delete it with a UID precondition", () => {
    expect(decide(MANAGED, managed(TENANT))).toEqual({
      decision: "delete-namespace",
      namespaceName: "oce-89d99db2f971e50",
      uid: UID,
    });
  });

  it("the previous name form is deleted too", () => {
    expect(decide(MANAGED, managed(TENANT, { name: previousManagedName(TENANT) })).decision).toBe(
      "delete-namespace",
    );
  });

  it("a namespace of the managed name that was never bound is left alone → deleted", () => {
    expect(decide(MANAGED, preparedExternal({ name: "oce-89d99db2f971e50" }))).toEqual({
      decision: "finished",
      result: { outcome: "deleted" },
    });
  });

  it("terminating → pending until it is gone", () => {
    const decision = decide(
      MANAGED,
      managed(TENANT, { deletionTimestamp: "2026-01-01T00:00:00Z" }),
    );
    expect(decision.decision === "finished" && decision.result.outcome).toBe("pending");
  });

  it.each([
    [
      "manager label missing",
      (ns: K8sNamespace) =>
        withMetadata(ns, without(ns.metadata?.labels, LABELS.managedBy), ns.metadata?.annotations),
    ],
    [
      "lifecycle external",
      (ns: K8sNamespace) =>
        withMetadata(ns, ns.metadata?.labels, {
          ...ns.metadata?.annotations,
          [ANNOTATIONS.lifecycle]: "external",
        }),
    ],
    [
      "lifecycle preprovisioned",
      (ns: K8sNamespace) =>
        withMetadata(ns, ns.metadata?.labels, {
          ...ns.metadata?.annotations,
          [ANNOTATIONS.lifecycle]: "preprovisioned",
        }),
    ],
    [
      "not a managed name",
      (ns: K8sNamespace) => ({
        ...ns,
        metadata: { ...ns.metadata, name: "customer-support-prod" },
      }),
    ],
    ["partial markers", (ns: K8sNamespace) => withMetadata(ns, ns.metadata?.labels, {})],
  ])("%s → permanent failure; never deletes an operator's namespace", (_case, mutate) => {
    expect(failure(decide(MANAGED, mutate(managed(TENANT))))).toMatchObject({
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      retryable: false,
    });
  });

  it("a recreated namespace → permanent failure with its own code; never deleted", () => {
    const recreated = managed(TENANT);
    expect(
      failure(decide(MANAGED, { ...recreated, metadata: { ...recreated.metadata, uid: "new" } })),
    ).toMatchObject({ code: "KUBERNETES_NAMESPACE_REPLACED", retryable: false });
  });
});

describe("deletionPending", () => {
  it("is pending with the converging code", () => {
    expect(deletionPending("allow-dns still present")).toEqual({
      outcome: "pending",
      code: "KUBERNETES_NAMESPACE_PENDING",
      reason: "allow-dns still present",
    });
  });
});
