import { describe, expect, it } from "vitest";
import {
  needsWrite,
  ownedObjectAction,
  type LimitRange,
  type LimitRangeItem,
  type NetworkPolicy,
  type ResourceQuota,
} from "../../../src/domain/index.js";
import { OTHER, TENANT } from "./fixtures.js";
import { MARKERS, asObserved, desired, limitsOf, policyOf, quotaOf } from "./owned-fixtures.js";

describe("needsWrite", () => {
  const objects = desired();
  const quota = quotaOf(objects);
  const limits = limitsOf(objects);
  const deny = policyOf(objects, "default-deny");
  const dns = policyOf(objects, "allow-dns");
  /** The LimitRange as the server returns it, holding just `item`. */
  const limitsHolding = (item: LimitRangeItem): LimitRange => ({
    ...asObserved(limits),
    spec: { limits: [item] },
  });

  it.each(objects.map((object) => [object.metadata.name, object] as const))(
    "an unchanged %s as the server returns it needs no write",
    (_name, object) => {
      expect(needsWrite(asObserved(object), object)).toBe(false);
    },
  );

  it("quota: canonicalised quantities are equal", () => {
    const observed: ResourceQuota = {
      ...asObserved(quota),
      spec: { hard: { "requests.cpu": "8000m", "limits.memory": "17179869184", pods: "5e1" } },
    };
    expect(needsWrite(observed, quota)).toBe(false);
  });

  it.each([
    ["a changed value", { "requests.cpu": "9", "limits.memory": "16Gi", pods: "50" }],
    ["a missing key", { "requests.cpu": "8", "limits.memory": "16Gi" }],
    ["an extra key", { "requests.cpu": "8", "limits.memory": "16Gi", pods: "50", services: "1" }],
  ])("quota: %s needs a write", (_case, hard) => {
    expect(needsWrite({ ...asObserved(quota), spec: { hard } }, quota)).toBe(true);
  });

  it("quota: scopes added by someone need a write", () => {
    const observed: ResourceQuota = {
      ...asObserved(quota),
      spec: { ...quota.spec, scopes: ["BestEffort"] },
    };
    expect(needsWrite(observed, quota)).toBe(true);
  });

  it("limit range: 1000m equals 1, and 1Gi equals 1073741824", () => {
    const observed = limitsHolding({
      type: "Container",
      default: { cpu: "1000m", memory: "1073741824" },
      defaultRequest: { cpu: "0.5", memory: "512Mi" },
    });
    expect(needsWrite(observed, limits)).toBe(false);
  });

  it.each([
    [
      "a changed default",
      {
        type: "Container",
        default: { cpu: "2", memory: "1Gi" },
        defaultRequest: { cpu: "500m", memory: "512Mi" },
      },
    ],
    [
      "a max added",
      {
        type: "Container",
        default: { cpu: "1", memory: "1Gi" },
        defaultRequest: { cpu: "500m", memory: "512Mi" },
        max: { cpu: "4" },
      },
    ],
    [
      "another type",
      {
        type: "Pod",
        default: { cpu: "1", memory: "1Gi" },
        defaultRequest: { cpu: "500m", memory: "512Mi" },
      },
    ],
  ])("limit range: %s needs a write", (_case, item) => {
    expect(needsWrite(limitsHolding(item), limits)).toBe(true);
  });

  it("limit range: server defaulting of defaultRequest from default is equal", () => {
    const declared: LimitRange = {
      ...limits,
      spec: { limits: [{ type: "Container", default: { cpu: "1", memory: "1Gi" } }] },
    };
    const stored = limitsHolding({
      type: "Container",
      default: { cpu: "1", memory: "1Gi" },
      defaultRequest: { cpu: "1", memory: "1Gi" },
    });
    expect(needsWrite(stored, declared)).toBe(false);
  });

  it("network policy: the server's omitted protocol and dropped empty lists are equal", () => {
    const observed: NetworkPolicy = {
      ...asObserved(dns),
      spec: {
        podSelector: { matchLabels: { "openclaw.dev/network-profile": "broad-egress-v1" } },
        policyTypes: ["Egress"],
        egress: [
          {
            to: [
              {
                podSelector: { matchLabels: { "k8s-app": "kube-dns" } },
                namespaceSelector: {
                  matchLabels: { "kubernetes.io/metadata.name": "kube-system" },
                },
              },
            ],
            ports: [
              { protocol: "UDP", port: 53 },
              { port: 53 },
              { protocol: "UDP", port: 5353 },
              { port: 5353 },
            ],
          },
        ],
      },
    };
    expect(needsWrite(observed, dns)).toBe(false);
    expect(
      needsWrite({ ...asObserved(deny), spec: { ...deny.spec, ingress: [], egress: [] } }, deny),
    ).toBe(false);
  });

  it("network policy: an allow-all rule added to default-deny needs a write", () => {
    expect(needsWrite({ ...asObserved(deny), spec: { ...deny.spec, ingress: [{}] } }, deny)).toBe(
      true,
    );
  });

  it("marker keys are compared; a changed marker needs a write, extra keys do not", () => {
    const changed: ResourceQuota = {
      ...asObserved(quota),
      metadata: {
        ...asObserved(quota).metadata,
        labels: { ...MARKERS.labels, "app.kubernetes.io/managed-by": "Helm" },
      },
    };
    expect(needsWrite(changed, quota)).toBe(true);
  });

  it("objects of different kinds always differ", () => {
    expect(needsWrite(asObserved(quota), limits)).toBe(true);
  });
});

describe("ownedObjectAction", () => {
  const quota = quotaOf(desired());

  it("missing → create", () => {
    expect(ownedObjectAction(null, quota, TENANT)).toEqual({ action: "create" });
  });

  it("owned and equal → none", () => {
    expect(ownedObjectAction(asObserved(quota), quota, TENANT)).toEqual({ action: "none" });
  });

  it("owned and different → update guarded by the observed resourceVersion", () => {
    const observed: ResourceQuota = { ...asObserved(quota), spec: { hard: { pods: "1" } } };
    expect(ownedObjectAction(observed, quota, TENANT)).toEqual({
      action: "update",
      resourceVersion: "99",
    });
  });

  it.each([
    ["no markers", {}, {}],
    [
      "another tenant's markers",
      { ...MARKERS.labels, "openclaw.dev/namespace": OTHER },
      { "openclaw.dev/namespace-id": OTHER },
    ],
    ["missing manager label", { "openclaw.dev/namespace": TENANT }, MARKERS.annotations],
  ])("not owned (%s) → permanent conflict, never overwritten", (_case, labels, annotations) => {
    const observed: ResourceQuota = {
      ...quota,
      metadata: { ...quota.metadata, labels, annotations },
    };
    const action = ownedObjectAction(observed, quota, TENANT);
    expect(action).toEqual({
      action: "stop",
      result: {
        outcome: "failed",
        code: "KUBERNETES_OWNERSHIP_CONFLICT",
        reason:
          "ResourceQuota openclaw-quota exists in the namespace without this tenant's ownership markers; OCC never overwrites an object it does not own — remove or rename it",
        retryable: false,
      },
    });
    expect(JSON.stringify(action)).not.toContain(OTHER);
  });

  it("owned but being deleted → pending", () => {
    const observed: ResourceQuota = {
      ...asObserved(quota),
      metadata: { ...asObserved(quota).metadata, deletionTimestamp: "2026-01-01T00:00:00Z" },
    };
    expect(ownedObjectAction(observed, quota, TENANT)).toEqual({
      action: "stop",
      result: {
        outcome: "pending",
        code: "KUBERNETES_NAMESPACE_PENDING",
        reason: "ResourceQuota openclaw-quota is being deleted; it will be recreated",
      },
    });
  });
});
