import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  POD_SECURITY_LABELS,
  notDoneFromViolations,
  verifyExternalNamespace,
  type ExternalNamespaceVerdict,
} from "../../../src/domain/index.js";
import {
  FOREIGN_MARKERS,
  MEMBERSHIP,
  OTHER,
  ROUTING,
  TENANT,
  boundExternal,
  namespace,
  preparedExternal,
  without,
  withMetadata,
} from "./fixtures.js";

function refusal(verdict: ExternalNamespaceVerdict): {
  checks: string[];
  keys: (string | null)[];
  codes: string[];
} {
  if (verdict.verdict !== "refused") throw new Error("expected a refusal");
  return {
    checks: verdict.violations.map((v) => v.check),
    keys: verdict.violations.map((v) => v.key),
    codes: verdict.violations.map((v) => v.code),
  };
}

const BINDING_PATCH_LABELS = {
  [LABELS.namespace]: TENANT,
  [LABELS.gatewayNamespace]: TENANT,
};

describe("verifyExternalNamespace: adoptable", () => {
  it("an unbound prepared namespace gets one patch with only the binding keys", () => {
    expect(verifyExternalNamespace(preparedExternal(), TENANT, null)).toEqual({
      verdict: "adoptable",
      binding: "unbound",
      uid: "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60",
      patch: {
        resourceVersion: "4711",
        labels: BINDING_PATCH_LABELS,
        annotations: { [ANNOTATIONS.namespaceId]: TENANT },
      },
    });
  });

  it("with gateway routing the patch also sets the membership label", () => {
    const verdict = verifyExternalNamespace(preparedExternal(), TENANT, ROUTING);
    expect(verdict.verdict === "adoptable" && verdict.patch?.labels).toEqual({
      ...BINDING_PATCH_LABELS,
      [LABELS.gatewayMembership]: MEMBERSHIP,
    });
  });

  it("never writes the manager label, Pod Security labels or lifecycle annotation", () => {
    const verdict = verifyExternalNamespace(preparedExternal(), TENANT, ROUTING);
    if (verdict.verdict !== "adoptable" || verdict.patch === null)
      throw new Error("expected a patch");
    expect(Object.keys(verdict.patch.labels)).not.toContain(LABELS.managedBy);
    for (const key of POD_SECURITY_LABELS)
      expect(Object.keys(verdict.patch.labels)).not.toContain(key);
    expect(Object.keys(verdict.patch.annotations)).toEqual([ANNOTATIONS.namespaceId]);
  });

  it.each([
    ["without routing", false, null],
    ["with routing", true, ROUTING],
  ] as const)("a completely bound namespace needs no write (%s)", (_case, routed, routing) => {
    expect(verifyExternalNamespace(boundExternal(TENANT, routed), TENANT, routing)).toEqual({
      verdict: "adoptable",
      binding: "bound",
      uid: "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60",
      patch: null,
    });
  });

  it.each([
    [
      "membership label missing",
      without(boundExternal(TENANT, true).metadata?.labels, LABELS.gatewayMembership),
    ],
    [
      "membership label of another gateway",
      {
        ...boundExternal(TENANT, true).metadata?.labels,
        [LABELS.gatewayMembership]: "000000000000",
      },
    ],
    [
      "gateway-namespace label missing",
      without(boundExternal(TENANT, true).metadata?.labels, LABELS.gatewayNamespace),
    ],
  ])("bound but %s → the full binding patch", (_case, labels) => {
    const ns = withMetadata(
      boundExternal(TENANT, true),
      labels,
      boundExternal(TENANT, true).metadata?.annotations,
    );
    const verdict = verifyExternalNamespace(ns, TENANT, ROUTING);
    expect(verdict.verdict).toBe("adoptable");
    expect(verdict.verdict === "adoptable" && verdict.binding).toBe("bound");
    expect(verdict.verdict === "adoptable" && verdict.patch?.labels).toEqual({
      ...BINDING_PATCH_LABELS,
      [LABELS.gatewayMembership]: MEMBERSHIP,
    });
  });

  it.each([
    ["tenant label only", { [LABELS.namespace]: TENANT }, {}],
    ["tenant annotation only", {}, { [ANNOTATIONS.namespaceId]: TENANT }],
  ])(
    "a partial binding of this tenant (%s) is completed by the patch",
    (_case, labels, annotations) => {
      const verdict = verifyExternalNamespace(
        preparedExternal({ labels, annotations }),
        TENANT,
        null,
      );
      expect(verdict.verdict === "adoptable" && verdict.binding).toBe("partial");
      expect(verdict.verdict === "adoptable" && verdict.patch?.labels).toEqual(
        BINDING_PATCH_LABELS,
      );
    },
  );

  it("the manager label is not required (any operator value is fine)", () => {
    const ns = preparedExternal({ labels: { [LABELS.managedBy]: "argocd" } });
    expect(verifyExternalNamespace(ns, TENANT, null).verdict).toBe("adoptable");
    const none = withMetadata(
      ns,
      without(ns.metadata?.labels, LABELS.managedBy),
      ns.metadata?.annotations,
    );
    expect(verifyExternalNamespace(none, TENANT, null).verdict).toBe("adoptable");
  });
});

describe("verifyExternalNamespace: refusals", () => {
  it("missing → KUBERNETES_NAMESPACE_MISSING", () => {
    const verdict = verifyExternalNamespace(null, TENANT, null);
    expect(refusal(verdict)).toEqual({
      checks: ["missing"],
      keys: [null],
      codes: ["KUBERNETES_NAMESPACE_MISSING"],
    });
  });

  it.each([
    ["absent", undefined],
    ["preprovisioned", "preprovisioned"],
    ["External (case)", "External"],
    ["empty", ""],
  ])("lifecycle annotation %s → conflict naming the key", (_case, value) => {
    const prepared = preparedExternal();
    const annotations =
      value === undefined
        ? without(prepared.metadata?.annotations, ANNOTATIONS.lifecycle)
        : { [ANNOTATIONS.lifecycle]: value };
    const verdict = verifyExternalNamespace(
      withMetadata(prepared, prepared.metadata?.labels, annotations),
      TENANT,
      null,
    );
    expect(refusal(verdict)).toEqual({
      checks: ["lifecycle"],
      keys: [ANNOTATIONS.lifecycle],
      codes: ["KUBERNETES_OWNERSHIP_CONFLICT"],
    });
  });

  const psaCases = POD_SECURITY_LABELS.flatMap((key) =>
    [undefined, "baseline", "privileged", "Restricted", ""].map((value) => [key, value] as const),
  );
  it.each(psaCases)("Pod Security label %s = %j → conflict naming that key only", (key, value) => {
    const prepared = preparedExternal();
    const labels =
      value === undefined
        ? without(prepared.metadata?.labels, key)
        : { ...prepared.metadata?.labels, [key]: value };
    const verdict = verifyExternalNamespace(
      withMetadata(prepared, labels, prepared.metadata?.annotations),
      TENANT,
      null,
    );
    expect(refusal(verdict)).toEqual({
      checks: ["pod-security"],
      keys: [key],
      codes: ["KUBERNETES_OWNERSHIP_CONFLICT"],
    });
  });

  it.each(FOREIGN_MARKERS)(
    "foreign %s %s → conflict naming the key, never the value",
    (_where, key, foreign) => {
      const ns = preparedExternal(foreign);
      const verdict = verifyExternalNamespace(ns, TENANT, null);
      expect(refusal(verdict)).toEqual({
        checks: ["foreign-marker"],
        keys: [key],
        codes: ["KUBERNETES_OWNERSHIP_CONFLICT"],
      });
      expect(JSON.stringify(verdict)).not.toContain(OTHER);
      if (verdict.verdict === "refused") {
        const result = notDoneFromViolations(verdict.violations);
        expect(result.reason).toContain(key);
        expect(result.reason).not.toContain(OTHER);
      }
    },
  );

  it("a namespace completely bound to another tenant lists each foreign key", () => {
    const verdict = verifyExternalNamespace(boundExternal(OTHER, true), TENANT, ROUTING);
    expect(refusal(verdict).keys).toEqual([
      LABELS.namespace,
      ANNOTATIONS.namespaceId,
      LABELS.gatewayNamespace,
    ]);
    expect(JSON.stringify(verdict)).not.toContain(OTHER);
  });

  it.each([
    ["phase Terminating", { phase: "Terminating" }, "active"],
    ["phase missing", { phase: "" }, "active"],
    ["deletionTimestamp set", { deletionTimestamp: "2026-11-29T12:00:00Z" }, "terminating"],
  ])("%s → KUBERNETES_NAMESPACE_INACTIVE (a failure, not pending)", (_case, shape, check) => {
    const verdict = verifyExternalNamespace(preparedExternal(shape), TENANT, null);
    expect(refusal(verdict)).toEqual({
      checks: [check],
      keys: [null],
      codes: ["KUBERNETES_NAMESPACE_INACTIVE"],
    });
  });

  it("lists every failing requirement, ownership before activity", () => {
    const ns = namespace({
      labels: { [LABELS.podSecurityEnforce]: "restricted", [LABELS.namespace]: OTHER },
      phase: "Terminating",
    });
    const verdict = verifyExternalNamespace(ns, TENANT, null);
    expect(refusal(verdict).checks).toEqual([
      "lifecycle",
      "pod-security",
      "pod-security",
      "foreign-marker",
      "active",
    ]);
    if (verdict.verdict === "refused") {
      expect(notDoneFromViolations(verdict.violations)).toMatchObject({
        outcome: "failed",
        code: "KUBERNETES_OWNERSHIP_CONFLICT",
        retryable: false,
      });
    }
  });

  it("a needed patch without resourceVersion is a retryable incomplete read", () => {
    const verdict = verifyExternalNamespace(
      preparedExternal({ resourceVersion: "" }),
      TENANT,
      null,
    );
    expect(refusal(verdict)).toEqual({
      checks: ["incomplete-read"],
      keys: [null],
      codes: ["KUBERNETES_CONFLICT"],
    });
  });

  it("a missing uid is a retryable incomplete read", () => {
    const verdict = verifyExternalNamespace(preparedExternal({ uid: "" }), TENANT, null);
    expect(refusal(verdict).checks).toEqual(["incomplete-read"]);
  });
});
