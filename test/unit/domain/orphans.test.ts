import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  LIFECYCLE,
  managedNamespaceMarkers,
  namespaceBindingMarkers,
  orphanRelease,
  orphansAmong,
  releasedNamespace,
  staleOwnedObjects,
  tenantOwnershipMarkers,
  type K8sNamespace,
} from "../../../src/domain/index.js";
import { preflightExternal } from "../../../src/domain/placement/external-preflight.js";
import { OTHER, TENANT } from "./fixtures.js";

const RESTRICTED = {
  "pod-security.kubernetes.io/enforce": "restricted",
  "pod-security.kubernetes.io/audit": "restricted",
  "pod-security.kubernetes.io/warn": "restricted",
};

function ns(
  name: string,
  labels: Record<string, string>,
  annotations: Record<string, string> = {},
): K8sNamespace {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, uid: `uid-${name}`, resourceVersion: "7", labels, annotations },
    status: { phase: "Active" },
  };
}

const managed = (id: string) => {
  const m = managedNamespaceMarkers(id, null);
  return ns(`oce-${id.slice(-4)}`, { ...m.labels }, { ...m.annotations });
};
const external = (id: string) => {
  const m = namespaceBindingMarkers(id, null);
  return ns(
    "team-a",
    { ...RESTRICTED, ...m.labels, team: "a" },
    { ...m.annotations, [ANNOTATIONS.lifecycle]: LIFECYCLE.external },
  );
};

describe("orphans after a restore", () => {
  it("reports exactly the namespaces whose markers name an ID the database does not know", () => {
    const found = orphansAmong([managed(TENANT), external(OTHER)], (id) => id === TENANT);
    expect(found).toEqual([
      {
        kubernetesNamespace: "team-a",
        uid: "uid-team-a",
        namespaceIds: [OTHER],
        placement: "external",
        terminating: false,
      },
    ]);
    expect(orphansAmong([managed(TENANT)], () => false)[0]?.placement).toBe("managed");
    expect(orphansAmong([managed(TENANT), external(OTHER)], () => true)).toEqual([]);
  });

  it("counts a namespace that names a known and an unknown ID, naming only the unknown one", () => {
    const mixed = ns("mixed", { [LABELS.namespace]: TENANT, [LABELS.gatewayNamespace]: OTHER });
    expect(orphansAmong([mixed], (id) => id === TENANT)[0]?.namespaceIds).toEqual([OTHER]);
  });

  it("releases an external orphan only from exactly its stale ID, then passes the adoption checks", () => {
    const orphan = external(OTHER);
    const refusedOther = orphanRelease(orphan, TENANT);
    expect(refusedOther.ok).toBe(false);
    const release = orphanRelease(orphan, OTHER);
    if (!release.ok) throw new Error(release.reason);
    expect(release.release).toEqual({
      resourceVersion: "7",
      labels: [LABELS.namespace, LABELS.gatewayNamespace],
      annotations: [ANNOTATIONS.namespaceId],
    });
    const released = releasedNamespace(orphan, release.release);
    expect(released.metadata?.labels).toEqual({ ...RESTRICTED, team: "a" });
    expect(released.metadata?.annotations).toEqual({ [ANNOTATIONS.lifecycle]: "external" });

    const stalePolicy = { metadata: { name: "p", ...tenantOwnershipMarkers(OTHER) } };
    const operatorPolicy = { metadata: { name: "mine" } };
    expect(staleOwnedObjects([stalePolicy, operatorPolicy], OTHER)).toEqual([stalePolicy]);
    const ctx = {
      tenantId: "ns_preflight-candidate",
      routing: null,
      controllerNamespace: "openclaw-system",
      grants: [],
      labels: { required: {}, setting: "x" },
    };
    const candidate = { name: "team-a", bindings: [], claimants: [] };
    // Unreleased, the stale markers and policy are foreign to any new tenant.
    const before = preflightExternal(
      { ...candidate, namespace: orphan, policies: [stalePolicy] },
      ctx,
    );
    expect(before.map((v) => v.check)).toEqual([
      "foreign-marker",
      "foreign-marker",
      "foreign-marker",
      "network-policies",
    ]);
    expect(preflightExternal({ ...candidate, namespace: released, policies: [] }, ctx)).toEqual([]);
  });

  it("refuses to release a managed orphan (its name is reserved) or one read without a resourceVersion", () => {
    const refused = orphanRelease(managed(OTHER), OTHER);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.reason).toContain("managed orphan cannot be selected");
    const unversioned = external(OTHER);
    const noVersion = {
      ...unversioned,
      metadata: { ...unversioned.metadata, resourceVersion: "" },
    };
    expect(orphanRelease(noVersion, OTHER).ok).toBe(false);
  });
});
