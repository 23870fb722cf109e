import { describe, expect, it } from "vitest";
import {
  OWNED_OBJECT_NAMES,
  deletionProgress,
  desiredOwnedObjects,
  dnsGrantCompletion,
  needsWrite,
  ownedObjectAction,
  ownedObjectDeletionPlan,
  tenantOwnershipMarkers,
  type HasMetadata,
  type LimitRange,
  type NetworkPolicy,
  type OwnedObject,
  type ResourceQuota,
} from "../../../src/domain/index.js";
import { KUBE_DNS_PEER, OTHER, TENANT, validSettings } from "./fixtures.js";

const NS = "oce-89d99db2f971e50";
const MARKERS = tenantOwnershipMarkers(TENANT);

function desired(overrides: Record<string, unknown> = {}): readonly OwnedObject[] {
  return desiredOwnedObjects(TENANT, NS, validSettings(overrides));
}

function find(objects: readonly OwnedObject[], name: string): OwnedObject {
  const found = objects.find((object) => object.metadata.name === name);
  if (found === undefined) throw new Error(`no ${name}`);
  return found;
}

function quotaOf(objects: readonly OwnedObject[]): ResourceQuota {
  const found = find(objects, "openclaw-quota");
  if (found.kind !== "ResourceQuota") throw new Error("not a ResourceQuota");
  return found;
}

function limitsOf(objects: readonly OwnedObject[]): LimitRange {
  const found = find(objects, "openclaw-limits");
  if (found.kind !== "LimitRange") throw new Error("not a LimitRange");
  return found;
}

function policyOf(objects: readonly OwnedObject[], name: string): NetworkPolicy {
  const found = find(objects, name);
  if (found.kind !== "NetworkPolicy") throw new Error("not a NetworkPolicy");
  return found;
}

/** What the API server returns for a desired object: uid, resourceVersion, extra metadata. */
function asObserved<T extends OwnedObject>(object: T): T {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      uid: `uid-${object.metadata.name ?? ""}`,
      resourceVersion: "99",
      labels: { ...object.metadata.labels, "extra/label": "x" },
      annotations: { ...object.metadata.annotations, "kubectl.kubernetes.io/last-applied": "{}" },
    },
  };
}

describe("desiredOwnedObjects", () => {
  it("renders the five objects of §5 in reconcile order", () => {
    expect(desired().map((object) => `${object.kind}/${object.metadata.name ?? ""}`)).toEqual([
      "ResourceQuota/openclaw-quota",
      "LimitRange/openclaw-limits",
      "NetworkPolicy/default-deny",
      "NetworkPolicy/allow-dns",
      "NetworkPolicy/allow-gateway-ingress",
    ]);
  });

  it("marks every object as owned by the tenant, in the tenant namespace", () => {
    for (const object of desired()) {
      expect(object.metadata.namespace).toBe(NS);
      expect(object.metadata.labels).toEqual(MARKERS.labels);
      expect(object.metadata.annotations).toEqual(MARKERS.annotations);
    }
  });

  it("quota and limit range come from the settings", () => {
    const objects = desired();
    expect(quotaOf(objects).spec).toEqual({
      hard: { "requests.cpu": "8", "limits.memory": "16Gi", pods: "50" },
    });
    expect(limitsOf(objects).spec).toEqual({
      limits: [
        {
          type: "Container",
          default: { cpu: "1", memory: "1Gi" },
          defaultRequest: { cpu: "500m", memory: "512Mi" },
        },
      ],
    });
  });

  it("default-deny selects every pod and denies both directions", () => {
    expect(policyOf(desired(), "default-deny").spec).toEqual({
      podSelector: {},
      policyTypes: ["Ingress", "Egress"],
    });
  });

  it("allow-dns opens UDP/TCP 53 and 5353 to the DNS pods for broad-egress workloads", () => {
    expect(policyOf(desired(), "allow-dns").spec).toEqual({
      podSelector: { matchLabels: { "openclaw.dev/network-profile": "broad-egress-v1" } },
      policyTypes: ["Egress"],
      egress: [
        {
          to: [KUBE_DNS_PEER],
          ports: [
            { protocol: "UDP", port: 53 },
            { protocol: "TCP", port: 53 },
            { protocol: "UDP", port: 5353 },
            { protocol: "TCP", port: 5353 },
          ],
        },
      ],
    });
  });

  it("allow-gateway-ingress admits the Envoy pods of the Gateway when routing is set", () => {
    expect(policyOf(desired(), "allow-gateway-ingress").spec).toEqual({
      podSelector: {
        matchLabels: {
          "openclaw.dev/workload-role": "gateway",
          "openclaw.dev/network-profile": "broad-egress-v1",
        },
      },
      policyTypes: ["Ingress"],
      ingress: [
        {
          from: [
            {
              namespaceSelector: {
                matchLabels: { "kubernetes.io/metadata.name": "envoy-gateway-system" },
              },
              podSelector: {
                matchLabels: {
                  "gateway.envoyproxy.io/owning-gateway-namespace": "openclaw-system",
                  "gateway.envoyproxy.io/owning-gateway-name": "oce-agent-gateways",
                },
              },
            },
          ],
          ports: [{ protocol: "TCP", port: 18789 }],
        },
      ],
    });
  });

  it("without routing, admits each configured gateway client", () => {
    const objects = desired({
      gatewayRouting: null,
      gatewayClients: [
        { namespace: "ingress", podLabels: { app: "proxy" } },
        { namespace: "monitoring" },
      ],
    });
    expect(policyOf(objects, "allow-gateway-ingress").spec?.ingress).toEqual([
      {
        from: [
          {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress" } },
            podSelector: { matchLabels: { app: "proxy" } },
          },
          {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } },
            podSelector: {},
          },
        ],
        ports: [{ protocol: "TCP", port: 18789 }],
      },
    ]);
  });

  it("with neither routing nor clients, admits nothing (never an empty from)", () => {
    const policy = policyOf(
      desired({ gatewayRouting: null, gatewayClients: [] }),
      "allow-gateway-ingress",
    );
    expect(policy.spec?.policyTypes).toEqual(["Ingress"]);
    expect(policy.spec?.ingress).toBeUndefined();
  });
});

describe("needsWrite", () => {
  const objects = desired();
  const quota = quotaOf(objects);
  const limits = limitsOf(objects);
  const deny = policyOf(objects, "default-deny");
  const dns = policyOf(objects, "allow-dns");

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
    const observed: LimitRange = {
      ...asObserved(limits),
      spec: {
        limits: [
          {
            type: "Container",
            default: { cpu: "1000m", memory: "1073741824" },
            defaultRequest: { cpu: "0.5", memory: "512Mi" },
          },
        ],
      },
    };
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
    expect(needsWrite({ ...asObserved(limits), spec: { limits: [item] } }, limits)).toBe(true);
  });

  it("limit range: server defaulting of defaultRequest from default is equal", () => {
    const declared: LimitRange = {
      ...limits,
      spec: { limits: [{ type: "Container", default: { cpu: "1", memory: "1Gi" } }] },
    };
    const stored: LimitRange = {
      ...asObserved(limits),
      spec: {
        limits: [
          {
            type: "Container",
            default: { cpu: "1", memory: "1Gi" },
            defaultRequest: { cpu: "1", memory: "1Gi" },
          },
        ],
      },
    };
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

describe("ownedObjectDeletionPlan", () => {
  const owned = (name: string, uid = `uid-${name}`): HasMetadata => ({
    metadata: { name, uid, labels: MARKERS.labels, annotations: MARKERS.annotations },
  });
  const foreign = (name: string): HasMetadata => ({
    metadata: { name, uid: `uid-${name}`, labels: { "openclaw.dev/namespace": OTHER } },
  });

  it("deletes quota, limits, allow-dns, allow-gateway-ingress, other owned policies, default-deny last", () => {
    const plan = ownedObjectDeletionPlan(
      {
        resourceQuotas: [owned("openclaw-quota"), owned("operator-quota"), foreign("x")],
        limitRanges: [owned("openclaw-limits")],
        networkPolicies: [
          owned("default-deny"),
          owned("zz-agent-egress"),
          foreign("allow-all"),
          owned("allow-gateway-ingress"),
          owned("agent-egress-agt1"),
          owned("allow-dns"),
          { metadata: { name: "operator-policy", uid: "u" } },
        ],
      },
      TENANT,
    );
    expect(plan).toEqual([
      { kind: "ResourceQuota", name: "openclaw-quota", uid: "uid-openclaw-quota" },
      { kind: "LimitRange", name: "openclaw-limits", uid: "uid-openclaw-limits" },
      { kind: "NetworkPolicy", name: "allow-dns", uid: "uid-allow-dns" },
      { kind: "NetworkPolicy", name: "allow-gateway-ingress", uid: "uid-allow-gateway-ingress" },
      { kind: "NetworkPolicy", name: "agent-egress-agt1", uid: "uid-agent-egress-agt1" },
      { kind: "NetworkPolicy", name: "zz-agent-egress", uid: "uid-zz-agent-egress" },
      { kind: "NetworkPolicy", name: "default-deny", uid: "uid-default-deny" },
    ]);
  });

  it("skips same-named objects that are not owned, and objects without a uid", () => {
    const plan = ownedObjectDeletionPlan(
      {
        resourceQuotas: [foreign("openclaw-quota")],
        limitRanges: [
          {
            metadata: {
              name: "openclaw-limits",
              labels: MARKERS.labels,
              annotations: MARKERS.annotations,
            },
          },
        ],
        networkPolicies: [foreign("default-deny")],
      },
      TENANT,
    );
    expect(plan).toEqual([]);
  });

  it("the fixed names are the five of §5", () => {
    expect(Object.values(OWNED_OBJECT_NAMES)).toEqual([
      "openclaw-quota",
      "openclaw-limits",
      "default-deny",
      "allow-dns",
      "allow-gateway-ingress",
    ]);
  });
});

describe("deletionProgress", () => {
  it.each([
    [null, "gone"],
    [{ metadata: { uid: "other" } }, "gone"],
    [{ metadata: { uid: "u1" } }, "survives"],
  ] as const)("%j → %s", (reread, expected) => {
    expect(deletionProgress(reread, "u1")).toBe(expected);
  });
});

describe("dnsGrantCompletion: an allow-dns written before 5353", () => {
  const allowDns = (): NetworkPolicy => {
    const found = find(desired(), "allow-dns");
    if (found.kind !== "NetworkPolicy") throw new Error("not a NetworkPolicy");
    return found;
  };
  const stored = (ports: readonly number[], extra: Partial<NetworkPolicy["spec"]> = {}) => {
    const want = allowDns();
    const rule = want.spec?.egress?.[0];
    return {
      ...want,
      metadata: { ...want.metadata, uid: "uid-1", resourceVersion: "42" },
      spec: {
        ...want.spec,
        egress: [{ ...rule, ports: rule?.ports?.filter((p) => ports.includes(Number(p.port))) }],
        ...extra,
      },
    } satisfies NetworkPolicy;
  };

  it("appends only the missing ports, guarded by UID and resourceVersion", () => {
    const completion = dnsGrantCompletion(stored([53]), allowDns());
    expect(completion?.missing).toEqual([
      { protocol: "UDP", port: 5353 },
      { protocol: "TCP", port: 5353 },
    ]);
    expect(completion?.patch).toEqual([
      { op: "test", path: "/metadata/uid", value: "uid-1" },
      { op: "replace", path: "/metadata/resourceVersion", value: "42" },
      { op: "add", path: "/spec/egress/0/ports/-", value: { protocol: "UDP", port: 5353 } },
      { op: "add", path: "/spec/egress/0/ports/-", value: { protocol: "TCP", port: 5353 } },
    ]);
  });

  it("is null when the grant is complete, or when more than ports differ (the ordinary update)", () => {
    expect(dnsGrantCompletion(stored([53, 5353]), allowDns())).toBeNull();
    expect(
      dnsGrantCompletion(stored([53], { podSelector: { matchLabels: { x: "y" } } }), allowDns()),
    ).toBeNull();
    const withoutGuard = stored([53]);
    expect(
      dnsGrantCompletion(
        { ...withoutGuard, metadata: { ...withoutGuard.metadata, uid: undefined } },
        allowDns(),
      ),
    ).toBeNull();
  });
});
