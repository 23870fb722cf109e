import { describe, expect, it } from "vitest";
import type { Cached } from "../../../src/drivers/kubernetes/watch/projection.js";
import { ObjectStore } from "../../../src/drivers/kubernetes/watch/store.js";

const TENANT = "openclaw.dev/namespace";

const ns = (name: string, tenant?: string, resourceVersion = "1"): Cached => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: {
    name,
    resourceVersion,
    ...(tenant !== undefined ? { labels: { [TENANT]: tenant } } : {}),
  },
});

const quota = (namespace: string, tenant: string): Cached => ({
  apiVersion: "v1",
  kind: "ResourceQuota",
  metadata: { name: "openclaw-quota", namespace, labels: { [TENANT]: tenant } },
});

const names = (objects: readonly Cached[] | undefined) =>
  objects?.map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`);

describe("ObjectStore: the label index answers what a scan would", () => {
  it("finds objects by the indexed label's value and follows upserts, relabels and removes", () => {
    const store = new ObjectStore(TENANT);
    store.upsert(ns("occ-a", "ns_a"));
    store.upsert(ns("occ-b", "ns_b"));
    store.upsert(ns("other"));
    expect(names(store.withLabel("ns_a"))).toEqual(["/occ-a"]);
    expect(names(store.withLabel("ns_c"))).toEqual([]);

    // A new version with the same label stays indexed once; a relabel moves it.
    store.upsert(ns("occ-a", "ns_a", "2"));
    expect(store.withLabel("ns_a")?.map((o) => o.metadata.resourceVersion)).toEqual(["2"]);
    store.upsert(ns("occ-b", "ns_a", "3"));
    expect(names(store.withLabel("ns_a"))).toEqual(["/occ-a", "/occ-b"]);
    expect(names(store.withLabel("ns_b"))).toEqual([]);
    store.upsert(ns("occ-b", undefined, "4"));
    expect(names(store.withLabel("ns_a"))).toEqual(["/occ-a"]);

    store.remove("", "occ-a");
    expect(names(store.withLabel("ns_a"))).toEqual([]);
    expect(store.size).toBe(2);
  });

  it("narrows to one namespace, and a relist's replace keeps the index in step", () => {
    const store = new ObjectStore(TENANT);
    store.upsert(quota("occ-a", "ns_a"));
    store.upsert(quota("occ-b", "ns_a"));
    expect(names(store.withLabel("ns_a", "occ-b"))).toEqual(["occ-b/openclaw-quota"]);
    store.replace([quota("occ-b", "ns_b")]);
    expect(names(store.withLabel("ns_a"))).toEqual([]);
    expect(names(store.withLabel("ns_b"))).toEqual(["occ-b/openclaw-quota"]);
  });

  it("without an index label it answers undefined (the caller scans)", () => {
    const store = new ObjectStore();
    store.upsert(ns("occ-a", "ns_a"));
    expect(store.withLabel("ns_a")).toBeUndefined();
    expect(names(store.list())).toEqual(["/occ-a"]);
  });
});

describe("ObjectStore: small buckets become maps and back", () => {
  it("answers gets, lists, label reads and removes the same past eight objects in one namespace", () => {
    const store = new ObjectStore(TENANT);
    const names12 = Array.from({ length: 12 }, (_, i) => `q${String(i).padStart(2, "0")}`);
    for (const name of names12) {
      store.upsert({
        ...quota("occ-a", "ns_a"),
        metadata: { ...quota("occ-a", "ns_a").metadata, name },
      });
    }
    store.upsert(quota("occ-b", "ns_a"));
    expect(store.size).toBe(13);
    expect(store.get("occ-a", "q11")?.metadata.name).toBe("q11");
    expect(
      store
        .list("occ-a")
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(names12);
    expect(store.withLabel("ns_a")).toHaveLength(13);
    expect(store.withLabel("ns_a", "occ-b")).toHaveLength(1);
    for (const name of names12) store.remove("occ-a", name);
    expect(store.list("occ-a")).toEqual([]);
    expect(names(store.withLabel("ns_a"))).toEqual(["occ-b/openclaw-quota"]);
    expect(store.size).toBe(1);
    // Removing what is not there changes nothing.
    expect(store.remove("occ-a", "q00").previous).toBeNull();
    expect(store.size).toBe(1);
  });
});
