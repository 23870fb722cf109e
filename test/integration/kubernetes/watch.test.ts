import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  RequestCounter,
  createObjectClient,
  loadKubeConfig,
} from "../../../src/drivers/kubernetes/client/index.js";
import { KubeTransport } from "../../../src/drivers/kubernetes/client/transport.js";
import { cachedObjectClient } from "../../../src/drivers/kubernetes/watch/cached-client.js";
import {
  Reflector,
  type WatchRestartReason,
} from "../../../src/drivers/kubernetes/watch/reflector.js";
import type { StoreChange } from "../../../src/drivers/kubernetes/watch/store.js";
import {
  startWatchSet,
  type TenantTouch,
} from "../../../src/drivers/kubernetes/watch/watch-set.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { grantChartClusterRoles } from "../../harness/rbac.js";

const env = inject("env");
const admin = createObjectClient(loadKubeConfig(env.kubeconfigs.admin));
beforeAll(async () => {
  // The worker identity holds exactly the chart's cluster rules, watches included.
  await grantChartClusterRoles();
});
afterAll(() => {
  admin.close();
});

const TENANT = "openclaw.dev/namespace";

/** `eventually` over a synchronous condition. */
const now = (condition: () => boolean) => () => Promise.resolve(condition());

async function freshNamespace(labels: Record<string, string> = {}): Promise<string> {
  const name = uniqueName("w");
  await admin.create("Namespace", { metadata: { name, labels } });
  return name;
}

const policy = (namespace: string, name: string, labels: Record<string, string> = {}) => ({
  metadata: { name, namespace, labels },
  spec: { podSelector: {}, policyTypes: ["Ingress"] },
});

function startReflector(kind: "NetworkPolicy" | "Namespace", labelSelector?: string) {
  const changes: StoreChange[] = [];
  const restarts: WatchRestartReason[] = [];
  const transport = new KubeTransport(loadKubeConfig(env.kubeconfigs["occ-worker"]), {
    counter: new RequestCounter(),
  });
  const r = new Reflector({
    transport,
    kind,
    ...(labelSelector !== undefined ? { labelSelector } : {}),
    onChange: (c) => changes.push(c),
    onRestart: (reason) => restarts.push(reason),
    minBackoffMs: 50,
  });
  r.start();
  return {
    r,
    changes,
    restarts,
    stop: async () => {
      await r.stop();
      transport.close();
    },
  };
}

describe("watch reflector against the real API server (as the worker identity)", () => {
  it("lists, then reports each add, edit and delete of a NetworkPolicy in any namespace", async () => {
    const ns = await freshNamespace();
    await admin.create("NetworkPolicy", policy(ns, "before"));
    const w = startReflector("NetworkPolicy");
    try {
      expect(await w.r.waitForSync(30_000)).toBe(true);
      expect(w.r.ready).toBe(true);
      // Already there at the first list: cached, but not reported as a change.
      expect(w.r.store.get(ns, "before")?.metadata.name).toBe("before");
      expect(w.changes.filter((c) => c.namespace === ns)).toEqual([]);

      const created = await admin.create("NetworkPolicy", policy(ns, "foreign"));
      await eventually(
        "the add is seen",
        now(() => w.r.store.get(ns, "foreign") !== undefined),
      );
      await admin.patch(
        "NetworkPolicy",
        { name: "foreign", namespace: ns },
        { spec: { policyTypes: ["Ingress", "Egress"] } },
        { type: "merge" },
      );
      await eventually(
        "the edit is seen",
        now(() => JSON.stringify(w.r.store.get(ns, "foreign")?.spec).includes("Egress")),
      );
      await admin.delete(
        "NetworkPolicy",
        { name: "foreign", namespace: ns },
        {
          uid: created.metadata.uid ?? "",
        },
      );
      await eventually(
        "the delete is seen",
        now(() => w.r.store.get(ns, "foreign") === undefined),
      );
      const mine = w.changes.filter((c) => c.namespace === ns);
      expect(mine.map((c) => [c.name, c.previous !== null, c.current !== null])).toEqual([
        ["foreign", false, true],
        ["foreign", true, true],
        ["foreign", true, false],
      ]);
      // Cached objects keep what a pass reads and drop managedFields and the rest.
      const kept = w.r.store.get(ns, "before")?.metadata;
      expect(kept).not.toHaveProperty("managedFields");
      expect(kept).not.toHaveProperty("creationTimestamp");
      expect(Object.keys(kept ?? {}).slice(0, 4)).toEqual([
        "name",
        "namespace",
        "uid",
        "resourceVersion",
      ]);
      expect(w.r.store.get(ns, "before")?.spec).toEqual({
        podSelector: {},
        policyTypes: ["Ingress"],
      });
    } finally {
      await w.stop();
    }
  });

  it("label-selected: a namespace that loses the tenant label leaves the cache and is reported", async () => {
    const ns = await freshNamespace({ [TENANT]: "ns_watchtest" });
    const w = startReflector("Namespace", TENANT);
    try {
      expect(await w.r.waitForSync(30_000)).toBe(true);
      expect(w.r.store.get("", ns)?.metadata.labels?.[TENANT]).toBe("ns_watchtest");
      await admin.patch(
        "Namespace",
        { name: ns },
        { metadata: { labels: { [TENANT]: null } } },
        {
          type: "merge",
        },
      );
      await eventually(
        "the unlabelled namespace is dropped",
        now(() => w.changes.some((c) => c.name === ns && c.current === null)),
      );
      const gone = w.changes.find((c) => c.name === ns && c.current === null);
      expect(gone?.previous?.metadata.labels?.[TENANT]).toBe("ns_watchtest");
    } finally {
      await w.stop();
    }
  });
});

describe("watch set and cache-backed client", () => {
  it("maps a change to its tenant and answers the pass's reads with no API request", async () => {
    const tenant = "ns_" + uniqueName("t").replace(/-/g, "");
    const ns = await freshNamespace({ [TENANT]: tenant });
    await admin.create("NetworkPolicy", policy(ns, "default-deny", { [TENANT]: tenant }));
    await admin.create("ResourceQuota", {
      metadata: { name: "q", namespace: ns, labels: { [TENANT]: tenant } },
      spec: { hard: { pods: "3" } },
    });
    const touches: TenantTouch[] = [];
    const set = startWatchSet({
      kubeconfig: loadKubeConfig(env.kubeconfigs["occ-worker"]),
      counter: new RequestCounter(),
      onTouch: (t) => touches.push(t),
    });
    // The delegate counts what reaches the API server (admin: the worker holds no tenant
    // RoleBinding in this namespace, and this test is about the cache, not RBAC).
    const inner = createObjectClient(loadKubeConfig(env.kubeconfigs.admin));
    try {
      expect(await set.waitForSync(30_000)).toBe(true);
      const client = cachedObjectClient(inner, set.reflectors);
      const ns1 = await client.get("Namespace", { name: ns });
      const claimants = await client.list("Namespace", { labelSelector: `${TENANT}=${tenant}` });
      const policies = await client.list("NetworkPolicy", { namespace: ns });
      const quota = await client.find("ResourceQuota", { name: "q", namespace: ns });
      expect(ns1.metadata.name).toBe(ns);
      expect(claimants.map((c) => c.metadata.name)).toEqual([ns]);
      expect(policies.map((p) => p.metadata.name)).toEqual(["default-deny"]);
      expect(quota?.metadata.name).toBe("q");
      expect(inner.counter.total()).toBe(0);

      // A miss is asked of the API server (the cache never answers "absent" on its own).
      expect(await client.find("LimitRange", { name: "absent", namespace: ns })).toBeUndefined();
      expect(inner.counter.snapshot()).toEqual({ "get 404": 1 });

      // An unlabelled foreign policy in the tenant namespace is seen and mapped to the tenant.
      await admin.create("NetworkPolicy", policy(ns, "allow-all"));
      await eventually(
        "the foreign policy is mapped to the tenant",
        now(() => touches.some((t) => t.namespace === ns && t.tenant === tenant)),
      );
      expect((await client.list("NetworkPolicy", { namespace: ns })).length).toBe(2);
      expect(set.sizes().NetworkPolicy).toBeGreaterThanOrEqual(2);
    } finally {
      await set.stop();
      inner.close();
    }
  });
});
