import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  LIFECYCLE,
  MARKER_VALUES,
  POD_SECURITY_LABELS,
  agentOwnershipMarkers,
  hasMarkers,
  isOwnedBy,
  managedNamespaceMarkers,
  namespaceBindingMarkers,
  revisionOwnershipMarkers,
  tenantOwnershipMarkers,
} from "../../../src/domain/index.js";
import {
  MANAGED_LABELS_AS_WRITTEN,
  MEMBERSHIP,
  OTHER,
  ROUTING,
  TENANT,
  without,
} from "./fixtures.js";

describe("marker vocabulary", () => {
  it("has the exact keys and values of placement.md §2", () => {
    expect(LABELS.managedBy).toBe("app.kubernetes.io/managed-by");
    expect(MARKER_VALUES.managedBy).toBe("openclaw-enterprise");
    expect(LABELS.namespace).toBe("openclaw.dev/namespace");
    expect(ANNOTATIONS.namespaceId).toBe("openclaw.dev/namespace-id");
    expect(LABELS.gatewayNamespace).toBe("openclaw.dev/gateway-namespace");
    expect(LABELS.gatewayMembership).toBe("openclaw-enterprise.io/gateway");
    expect(POD_SECURITY_LABELS).toEqual([
      "pod-security.kubernetes.io/enforce",
      "pod-security.kubernetes.io/audit",
      "pod-security.kubernetes.io/warn",
    ]);
    expect(MARKER_VALUES.podSecurityLevel).toBe("restricted");
    expect(ANNOTATIONS.lifecycle).toBe("openclaw.dev/namespace-lifecycle");
    expect(LIFECYCLE).toEqual({ external: "external", preprovisioned: "preprovisioned" });
    expect(LABELS.agent).toBe("openclaw.dev/agent");
    expect(ANNOTATIONS.agentId).toBe("openclaw.dev/agent-id");
    expect(LABELS.revision).toBe("openclaw.dev/revision");
    expect(ANNOTATIONS.revisionId).toBe("openclaw.dev/revision-id");
  });
});

describe("owned-object markers", () => {
  it("tenant scope: manager label, tenant label, tenant annotation", () => {
    expect(tenantOwnershipMarkers(TENANT)).toEqual({
      labels: {
        "app.kubernetes.io/managed-by": "openclaw-enterprise",
        "openclaw.dev/namespace": TENANT,
      },
      annotations: { "openclaw.dev/namespace-id": TENANT },
    });
  });

  it("agent scope adds the agent label and annotation", () => {
    expect(agentOwnershipMarkers(TENANT, "agt_1")).toEqual({
      labels: {
        "app.kubernetes.io/managed-by": "openclaw-enterprise",
        "openclaw.dev/namespace": TENANT,
        "openclaw.dev/agent": "agt_1",
      },
      annotations: { "openclaw.dev/namespace-id": TENANT, "openclaw.dev/agent-id": "agt_1" },
    });
  });

  it("revision scope adds the revision markers to the agent markers", () => {
    expect(revisionOwnershipMarkers(TENANT, "agt_1", "rev_2")).toEqual({
      labels: {
        "app.kubernetes.io/managed-by": "openclaw-enterprise",
        "openclaw.dev/namespace": TENANT,
        "openclaw.dev/agent": "agt_1",
        "openclaw.dev/revision": "rev_2",
      },
      annotations: {
        "openclaw.dev/namespace-id": TENANT,
        "openclaw.dev/agent-id": "agt_1",
        "openclaw.dev/revision-id": "rev_2",
      },
    });
  });
});

describe("isOwnedBy", () => {
  const owned = tenantOwnershipMarkers(TENANT);

  it("accepts exact markers and ignores extra keys", () => {
    expect(isOwnedBy({ labels: owned.labels, annotations: owned.annotations }, TENANT)).toBe(true);
    expect(
      isOwnedBy(
        {
          labels: { ...owned.labels, team: "a", [LABELS.agent]: "agt_1" },
          annotations: { ...owned.annotations, note: "x" },
        },
        TENANT,
      ),
    ).toBe(true);
  });

  it.each([
    ["manager label missing", without(owned.labels, LABELS.managedBy), owned.annotations],
    ["tenant label missing", without(owned.labels, LABELS.namespace), owned.annotations],
    ["tenant annotation missing", owned.labels, {}],
    ["manager label Helm", { ...owned.labels, [LABELS.managedBy]: "Helm" }, owned.annotations],
    ["tenant label foreign", { ...owned.labels, [LABELS.namespace]: OTHER }, owned.annotations],
    ["annotation foreign", owned.labels, { [ANNOTATIONS.namespaceId]: OTHER }],
    [
      "label case differs",
      { ...owned.labels, [LABELS.namespace]: TENANT.toUpperCase() },
      owned.annotations,
    ],
    [
      "marker as annotation instead of label",
      without(owned.labels, LABELS.namespace),
      { ...owned.annotations, [LABELS.namespace]: TENANT },
    ],
  ])("rejects: %s", (_case, labels, annotations) => {
    expect(isOwnedBy({ labels, annotations }, TENANT)).toBe(false);
  });

  it("rejects missing metadata and inherited keys", () => {
    expect(isOwnedBy(undefined, TENANT)).toBe(false);
    expect(isOwnedBy({}, TENANT)).toBe(false);
    const inherited = Object.create(owned.labels) as Record<string, string>;
    expect(isOwnedBy({ labels: inherited, annotations: owned.annotations }, TENANT)).toBe(false);
  });

  it("hasMarkers with an empty expectation is always true", () => {
    expect(hasMarkers(undefined, { labels: {}, annotations: {} })).toBe(true);
  });
});

describe("namespace marker sets", () => {
  it("binding markers without routing: tenant label, annotation, gateway-namespace", () => {
    expect(namespaceBindingMarkers(TENANT, null)).toEqual({
      labels: { [LABELS.namespace]: TENANT, [LABELS.gatewayNamespace]: TENANT },
      annotations: { [ANNOTATIONS.namespaceId]: TENANT },
    });
  });

  it("binding markers with routing add the membership label", () => {
    expect(namespaceBindingMarkers(TENANT, ROUTING).labels).toEqual({
      [LABELS.namespace]: TENANT,
      [LABELS.gatewayNamespace]: TENANT,
      [LABELS.gatewayMembership]: MEMBERSHIP,
    });
  });

  it("managed markers add the manager and three Pod Security labels, no lifecycle", () => {
    const markers = managedNamespaceMarkers(TENANT, ROUTING);
    expect(markers.labels).toEqual(MANAGED_LABELS_AS_WRITTEN);
    expect(markers.annotations).toEqual({ "openclaw.dev/namespace-id": TENANT });
  });
});
