import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { Interner, projectObject } from "../../../src/drivers/kubernetes/watch/projection.js";
import { ObjectStore } from "../../../src/drivers/kubernetes/watch/store.js";
import type { Kind } from "../../../src/drivers/kubernetes/client/index.js";

const TENANT = "openclaw.dev/namespace";

/** What the API server sends for one object a tenant owns: markers, managedFields and all. */
function raw(kind: string, name: string, namespace: string | null, tenant: string, n: number) {
  return {
    apiVersion: kind === "NetworkPolicy" ? "networking.k8s.io/v1" : "v1",
    kind,
    metadata: {
      name,
      ...(namespace === null ? {} : { namespace }),
      uid: `0f4c2a9e-1b2c-4d3e-8f90-${String(n).padStart(12, "0")}`,
      resourceVersion: String(1000 + n),
      generation: 1,
      creationTimestamp: "2026-12-05T18:55:18Z",
      labels: { "app.kubernetes.io/managed-by": "occ", [TENANT]: tenant },
      annotations: { "openclaw.dev/namespace-id": tenant },
      finalizers: ["kubernetes"],
      managedFields: [
        {
          manager: "occ",
          operation: "Update",
          apiVersion: "v1",
          time: "2026-12-05T18:55:18Z",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:metadata": { "f:labels": { ".": {}, [`f:${TENANT}`]: {} } } },
        },
      ],
    },
    spec: {
      podSelector: {},
      policyTypes: ["Ingress", "Egress"],
      egress: [{ ports: [{ protocol: "UDP", port: 53 }], to: [{ namespaceSelector: {} }] }],
    },
    status: { phase: "Active" },
  };
}

/** Six objects per tenant, as the worker's caches hold them (JSON text parsed, as a watch does). */
function tenantObjects(i: number): [Kind, unknown][] {
  const tenant = `ns_${String(i).padStart(26, "0")}`;
  const ns = `oce-${String(i).padStart(15, "0")}`;
  const objects: [Kind, string, string | null][] = [
    ["Namespace", ns, null],
    ["ResourceQuota", "openclaw-quota", ns],
    ["LimitRange", "openclaw-limits", ns],
    ["NetworkPolicy", "default-deny", ns],
    ["NetworkPolicy", "allow-dns", ns],
    ["NetworkPolicy", "allow-gateway-ingress", ns],
  ];
  return objects.map(([kind, name, namespace], k) => [
    kind,
    JSON.parse(JSON.stringify(raw(kind, name, namespace, tenant, i * 10 + k))),
  ]);
}

describe("projectObject: what a cached object keeps", () => {
  it("keeps identity, version, markers and the kind's fields; drops managedFields and the rest", () => {
    const [, ns] = tenantObjects(1)[0] ?? ["Namespace", null];
    const cached = projectObject("Namespace", ns);
    expect(cached?.metadata).toEqual({
      name: "oce-000000000000001",
      uid: "0f4c2a9e-1b2c-4d3e-8f90-000000000010",
      resourceVersion: "1010",
      generation: 1,
      labels: { "app.kubernetes.io/managed-by": "occ", [TENANT]: `ns_${"1".padStart(26, "0")}` },
      annotations: { "openclaw.dev/namespace-id": `ns_${"1".padStart(26, "0")}` },
    });
    expect(cached).toMatchObject({
      apiVersion: "v1",
      kind: "Namespace",
      status: { phase: "Active" },
    });
    expect(Object.isFrozen(cached?.metadata.labels)).toBe(true);
    expect(Object.isFrozen((cached?.spec as { policyTypes: unknown }).policyTypes)).toBe(true);
    // A RoleBinding keeps its identity only; a ResourceQuota no status.
    const binding = projectObject("RoleBinding", { ...(ns as object), roleRef: { name: "r" } });
    expect(binding?.metadata).toEqual({ name: "oce-000000000000001", resourceVersion: "1010" });
    expect(projectObject("ResourceQuota", ns)).not.toHaveProperty("status");
    expect(projectObject("Namespace", { metadata: { name: "" } })).toBeNull();
  });

  it("the interner hands out one copy of equal strings and starts again past its bound", () => {
    const strings = new Interner(2);
    const a = strings.intern(["de", "fault"].join(""));
    expect(strings.intern("default")).toBe(a);
    strings.intern("b");
    strings.intern("c");
    expect(strings.size).toBe(1);
  });
});

describe("ObjectStore: memory per tenant (P9: the worker's caches at 10,000 tenants)", () => {
  it("holds six objects of a tenant in at most 3 KB of V8 heap (12.5 KB before: every parsed string and subtree kept, metadata a dictionary)", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const tenants = 2_000;
    const strings = new Interner();
    const stores = new Map<Kind, ObjectStore>();
    gc();
    const before = process.memoryUsage().heapUsed;
    // Each object parsed from JSON text as a watch event is; the parsed object is garbage after.
    for (let i = 0; i < tenants; i++) {
      for (const [kind, obj] of tenantObjects(i)) {
        const store = stores.get(kind) ?? new ObjectStore(TENANT);
        stores.set(kind, store);
        const cached = projectObject(kind, obj, strings);
        if (cached !== null) store.upsert(cached);
      }
    }
    gc();
    const perTenant = (process.memoryUsage().heapUsed - before) / tenants;
    expect(stores.get("NetworkPolicy")?.size).toBe(3 * tenants);
    expect(stores.get("Namespace")?.withLabel(`ns_${"7".padStart(26, "0")}`)).toHaveLength(1);
    expect(perTenant).toBeLessThan(3_000);
  });
});
