import { describe, expect, it } from "vitest";
import {
  OWNED_OBJECT_NAMES,
  deletionProgress,
  dnsGrantCompletion,
  ownedObjectDeletionPlan,
  type HasMetadata,
  type NetworkPolicy,
} from "../../../src/domain/index.js";
import { KUBE_DNS_PEER, OTHER, TENANT } from "./fixtures.js";
import { MARKERS, NS, desired, find, limitsOf, policyOf, quotaOf } from "./owned-fixtures.js";

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
