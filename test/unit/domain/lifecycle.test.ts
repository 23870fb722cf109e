import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  OUTCOME_CODES,
  boundVerdictFor,
  markerRemovedViolation,
  notDone,
  outcomeClassOf,
  ready,
  tenantOwnershipMarkers,
  type BoundVerdict,
  type OutcomeClass,
} from "../../../src/domain/index.js";

/** What a bound Namespace's pass result means for its status, by the code's class (lifecycle.md §3). */
const EXPECTED_BY_CLASS: Readonly<Record<OutcomeClass, BoundVerdict["to"]>> = {
  // Not converged (terminating, the RoleBinding removed): OCC cannot serve it now → degraded.
  pending: "degraded",
  // The API server unreachable, a conflict: says nothing about the namespace → the queue retries.
  retryable: "unchanged",
  // Operator drift OCC must not repair (markers, Pod Security, foreign policy, vanished, replaced).
  permanent: "degraded",
};

describe("boundVerdictFor", () => {
  it("a ready pass → ready (back under the same ID, nothing adopted)", () => {
    expect(boundVerdictFor(ready("uid-1", "oce-x"))).toEqual({ to: "ready" });
  });

  it.each(OUTCOME_CODES.map((code) => [code, outcomeClassOf(code)] as const))(
    "%s (%s) → the verdict of its class, carrying the code and the pass's message",
    (code, cls) => {
      const verdict = boundVerdictFor(notDone(code, `why ${code}`));
      expect(verdict).toEqual({ to: EXPECTED_BY_CLASS[cls], code, message: `why ${code}` });
    },
  );

  it.each([
    ["KUBERNETES_NAMESPACE_MISSING", "degraded"],
    ["KUBERNETES_NAMESPACE_REPLACED", "degraded"],
    ["KUBERNETES_OWNERSHIP_CONFLICT", "degraded"],
    ["KUBERNETES_NAMESPACE_INACTIVE", "degraded"],
    ["KUBERNETES_PERMISSION_PENDING", "degraded"],
    ["KUBERNETES_NAMESPACE_PENDING", "degraded"],
    ["KUBERNETES_API_UNAVAILABLE", "unchanged"],
    ["KUBERNETES_API_TIMEOUT", "unchanged"],
    ["KUBERNETES_CONFLICT", "unchanged"],
  ] as const)("the runbook's %s → %s", (code, to) => {
    expect(boundVerdictFor(notDone(code, "m")).to).toBe(to);
  });
});

describe("markerRemovedViolation", () => {
  const TENANT = "ns_tenant-a";
  const wanted = tenantOwnershipMarkers(TENANT);
  const all = { labels: { ...wanted.labels }, annotations: { ...wanted.annotations } };
  const drop = (from: Record<string, string>, key: string) =>
    Object.fromEntries(Object.entries(from).filter(([k]) => k !== key));

  it.each([
    [
      "the tenant label removed",
      { labels: drop(all.labels, LABELS.namespace), annotations: all.annotations },
      [`label ${LABELS.namespace}`],
      LABELS.namespace,
    ],
    [
      "the tenant annotation removed",
      { labels: all.labels, annotations: drop(all.annotations, ANNOTATIONS.namespaceId) },
      [`annotation ${ANNOTATIONS.namespaceId}`],
      ANNOTATIONS.namespaceId,
    ],
    [
      "the manager label changed (a different value counts as removed)",
      {
        labels: { ...all.labels, [LABELS.managedBy]: "someone-else" },
        annotations: all.annotations,
      },
      [`label ${LABELS.managedBy}`],
      LABELS.managedBy,
    ],
    [
      "the tenant label pointed at another tenant",
      {
        labels: { ...all.labels, [LABELS.namespace]: "ns_other-tenant" },
        annotations: all.annotations,
      },
      [`label ${LABELS.namespace}`],
      LABELS.namespace,
    ],
    [
      "every marker removed",
      { labels: {}, annotations: {} },
      [
        `label ${LABELS.managedBy}`,
        `label ${LABELS.namespace}`,
        `annotation ${ANNOTATIONS.namespaceId}`,
      ],
      null,
    ],
    ["no metadata at all", undefined, [`label ${LABELS.managedBy}`], null],
  ] as const)("%s", (_case, metadata, missing, key) => {
    const v = markerRemovedViolation(metadata === undefined ? {} : { metadata }, wanted);
    expect(v).toMatchObject({
      check: "tenant-markers",
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      key,
    });
    for (const m of missing) expect(v.message).toContain(m);
    expect(v.message).toContain("OCC does not write to an operator's namespace once it is bound");
    // Names keys only: an observed value (another tenant's ID) never leaks into the message.
    expect(v.message).not.toContain("ns_other-tenant");
    expect(v.message).not.toContain("someone-else");
  });

  it("markers still present are not named", () => {
    const v = markerRemovedViolation(
      { metadata: { labels: drop(all.labels, LABELS.namespace), annotations: all.annotations } },
      wanted,
    );
    expect(v.message).not.toContain(LABELS.managedBy);
    expect(v.message).not.toContain(ANNOTATIONS.namespaceId);
  });
});
