import { describe, expect, it } from "vitest";
import {
  PREPROVISIONED_MESSAGES,
  currentManagedName,
  preprovisionedNamespaceFailures,
  requiredNamespaceMetadata,
  verifyPreprovisionedNamespace,
  type K8sNamespace,
  type NamespaceId,
} from "../../../src/domain/index.js";

const ID = "ns_example" as NamespaceId;
const UID = "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60";
const ROUTING = {
  gatewayNamespace: "openclaw-system",
  gatewayName: "oce-agent-gateways",
  envoyNamespace: "envoy",
};
const LABELS = { "openshell.nvidia.com/mode": "operator" };
const expected = {
  binding: { namespaceId: ID, uid: UID },
  routing: ROUTING,
  operatorNamespaceLabels: LABELS,
};

function good(): K8sNamespace {
  const m = requiredNamespaceMetadata(ID, ROUTING, LABELS);
  return {
    metadata: {
      name: currentManagedName(ID),
      uid: UID,
      labels: m.labels,
      annotations: m.annotations,
    },
    status: { phase: "Active" },
  };
}

function edit(
  kind: "labels" | "annotations",
  key: string,
  value: string | undefined,
): K8sNamespace {
  const ns = good();
  const map = Object.fromEntries(
    Object.entries({ ...(ns.metadata?.[kind] ?? {}), [key]: value }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  return { ...ns, metadata: { ...ns.metadata, [kind]: map } };
}

describe("preprovisioned namespace requirements", () => {
  it("the derived name and the membership value follow placement.md §1", () => {
    expect(currentManagedName(ID)).toBe("oce-52be956b5de4b1b");
    expect(
      requiredNamespaceMetadata(ID, ROUTING, {}).labels["openclaw-enterprise.io/gateway"],
    ).toBe("20ec97c41b82");
  });

  it("a prepared namespace verifies", () => {
    expect(verifyPreprovisionedNamespace(good(), expected, null)).toEqual({
      verdict: "verified",
      name: "oce-52be956b5de4b1b",
      uid: UID,
    });
  });

  it.each([
    ["annotations", "openclaw.dev/namespace-lifecycle", "external"],
    ["annotations", "openclaw.dev/namespace-id", undefined],
    ["labels", "app.kubernetes.io/managed-by", "Helm"],
    ["labels", "openclaw.dev/namespace", "ns_other"],
    ["labels", "openclaw.dev/gateway-namespace", undefined],
    ["labels", "openclaw-enterprise.io/gateway", "x"],
    ["labels", "pod-security.kubernetes.io/enforce", "baseline"],
    ["labels", "pod-security.kubernetes.io/audit", undefined],
    ["labels", "pod-security.kubernetes.io/warn", "privileged"],
    ["labels", "openshell.nvidia.com/mode", "sandbox"],
  ] as const)("%s %s wrong → one failure naming it, the seed's sentence", (kind, key, value) => {
    const ns = edit(kind, key, value);
    const failures = preprovisionedNamespaceFailures(ns, expected);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.requirement).toContain(key);
    const verdict = verifyPreprovisionedNamespace(ns, expected, null);
    expect(verdict.verdict === "refused" && verdict.result).toMatchObject({
      outcome: "failed",
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
    });
    expect(verdict.verdict === "refused" && verdict.result.reason).toContain(
      PREPROVISIONED_MESSAGES.namespaceMismatch,
    );
  });

  it("every failure is listed at once", () => {
    const ns: K8sNamespace = {
      metadata: { name: currentManagedName(ID), uid: "other" },
      status: {},
    };
    // uid, 2 annotations, 8 labels, phase
    expect(preprovisionedNamespaceFailures(ns, expected)).toHaveLength(12);
  });

  it("terminating, a recorded UID that differs, and missing", () => {
    const terminating = {
      ...good(),
      metadata: { ...good().metadata, deletionTimestamp: "2026-01-01T00:00:00Z" },
    };
    expect(
      preprovisionedNamespaceFailures(terminating, expected).map((f) => f.requirement),
    ).toEqual(["the namespace is not terminating"]);
    expect(verifyPreprovisionedNamespace(good(), expected, "another-uid").verdict).toBe("refused");
    const missing = verifyPreprovisionedNamespace(null, expected, null);
    expect(missing.verdict === "refused" && missing.result.code).toBe(
      "KUBERNETES_NAMESPACE_MISSING",
    );
  });

  it("without gateway routing the membership cannot be checked: a failure", () => {
    expect(
      preprovisionedNamespaceFailures(good(), { ...expected, routing: null }).map(
        (f) => f.requirement,
      ),
    ).toEqual(["the Installation configures gateway routing"]);
  });
});
