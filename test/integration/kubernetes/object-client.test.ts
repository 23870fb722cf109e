import { afterAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import {
  ClientClosedError,
  createObjectClient,
  isKubeError,
  loadKubeConfig,
} from "../../../src/drivers/kubernetes/client/index.js";
import { startFaultProxy, type Fault } from "../../harness/fault-proxy.js";
import { eventually, kubeFailure, uniqueName } from "../../harness/kube.js";

const admin = createObjectClient(loadKubeConfig(inject("env").kubeconfigs.admin));
afterAll(() => {
  admin.close();
});

async function freshNamespace(): Promise<string> {
  const name = uniqueName("oc");
  await admin.create("Namespace", { metadata: { name } });
  return name;
}

describe("object client against the real API server", () => {
  it("creates, reads, lists by label, applies, patches and deletes with a UID precondition", async () => {
    const ns = await freshNamespace();
    const cm = await admin.create("ConfigMap", {
      metadata: { name: "a", namespace: ns, labels: { team: "x" } },
      data: { k: "1" },
    });
    await admin.create("ConfigMap", {
      metadata: { name: "b", namespace: ns, labels: { team: "y" } },
    });
    expect((await admin.get("ConfigMap", { name: "a", namespace: ns })).data).toEqual({
      k: "1",
    });
    expect(await admin.find("ConfigMap", { name: "absent", namespace: ns })).toBeUndefined();
    const listed = await admin.list("ConfigMap", {
      namespace: ns,
      labelSelector: "team=x",
    });
    expect(listed.map((o) => o.metadata.name)).toEqual(["a"]);

    const stale = cm.metadata.resourceVersion ?? "";
    const patched = await admin.patch(
      "ConfigMap",
      { name: "a", namespace: ns },
      { data: { k: "2" } },
      { type: "merge" },
    );
    expect(patched.data).toEqual({ k: "2" });

    const conflict = await kubeFailure(
      admin.apply("ConfigMap", {
        metadata: { name: "a", namespace: ns, resourceVersion: stale },
        data: { k: "3" },
      }),
    );
    expect(conflict.category).toBe("conflict");
    expect(conflict.status).toBe(409);

    const wrongUid = await kubeFailure(
      admin.delete(
        "ConfigMap",
        { name: "a", namespace: ns },
        { uid: "00000000-0000-0000-0000-000000000000" },
      ),
    );
    expect(wrongUid.category).toBe("conflict");
    expect(await admin.find("ConfigMap", { name: "a", namespace: ns })).toBeDefined();

    await admin.delete("ConfigMap", { name: "a", namespace: ns }, { uid: cm.metadata.uid ?? "" });
    expect(await admin.find("ConfigMap", { name: "a", namespace: ns })).toBeUndefined();
  });

  it("refuses a delete without a UID before sending anything", async () => {
    const before = admin.counter.total();
    await expect(
      admin.delete("ConfigMap", { name: "a", namespace: "x" }, { uid: "" }),
    ).rejects.toThrow(/without a UID precondition/);
    expect(admin.counter.total()).toBe(before);
  });

  it("classifies 403 as forbidden for an identity without permissions", async () => {
    const worker = createObjectClient(loadKubeConfig(inject("env").kubeconfigs.nobody));
    try {
      const err = await kubeFailure(worker.list("Namespace"));
      expect(err.category).toBe("forbidden");
      expect(worker.counter.snapshot()).toEqual({ "list 403": 1 });
    } finally {
      worker.close();
    }
  });
});

describe("object client under injected faults", () => {
  async function withProxy(
    plan: (i: number, method: string) => Fault,
    run: (client: ReturnType<typeof createObjectClient>) => Promise<void>,
    timeoutMs = 10_000,
    onRequest?: () => void,
  ): Promise<{ seen: number }> {
    const proxy = await startFaultProxy((req, i) => {
      onRequest?.();
      return plan(i, req.method);
    });
    const client = createObjectClient(proxy.kubeConfig("admin"), {
      timeoutMs,
      maxBackoffMs: 1_500,
    });
    try {
      await run(client);
      return { seen: proxy.seen.length };
    } finally {
      client.close();
      await proxy.close();
    }
  }

  it("retries a read after 429, honouring Retry-After", async () => {
    const ns = await freshNamespace();
    let elapsed = 0;
    const { seen } = await withProxy(
      (i) =>
        i === 0 ? { action: "status", status: 429, retryAfterSeconds: 1 } : { action: "pass" },
      async (client) => {
        const start = Date.now();
        const got = await client.get("Namespace", { name: ns });
        elapsed = Date.now() - start;
        expect(got.metadata.name).toBe(ns);
        expect(client.counter.snapshot()).toEqual({ "get 429": 1, "get 200": 1 });
      },
    );
    expect(seen).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
  });

  it("gives up on a read after its bounded budget of 5xx answers", async () => {
    await withProxy(
      () => ({ action: "status", status: 503 }),
      async (client) => {
        const err = await kubeFailure(client.list("Namespace"));
        expect(err.category).toBe("server");
        expect(client.counter.snapshot()).toEqual({ "list 503": 3 });
      },
    );
  });

  it("never retries a write, even on 500", async () => {
    const ns = await freshNamespace();
    await withProxy(
      () => ({ action: "status", status: 500 }),
      async (client) => {
        const err = await kubeFailure(
          client.create("ConfigMap", { metadata: { name: "w", namespace: ns } }),
        );
        expect(err.category).toBe("server");
        expect(client.counter.snapshot()).toEqual({ "create 500": 1 });
      },
    );
    expect(await admin.find("ConfigMap", { name: "w", namespace: ns })).toBeUndefined();
  });

  it("ends a request at its deadline and classifies it as a timeout", async () => {
    await withProxy(
      () => ({ action: "hang" }),
      async (client) => {
        const start = Date.now();
        const err = await kubeFailure(
          client.create("ConfigMap", { metadata: { name: "t", namespace: "default" } }),
        );
        expect(err.category).toBe("timeout");
        expect(Date.now() - start).toBeLessThan(5_000);
        expect(client.counter.snapshot()).toEqual({ "create timeout": 1 });
      },
      300,
    );
  });

  it("classifies a dropped connection as a network error and retries reads", async () => {
    const ns = await freshNamespace();
    await withProxy(
      (i) => (i === 0 ? { action: "drop" } : { action: "pass" }),
      async (client) => {
        const got = await client.get("Namespace", { name: ns });
        expect(got.metadata.name).toBe(ns);
        expect(client.counter.snapshot()).toEqual({ "get network": 1, "get 200": 1 });
      },
    );
  });

  it("close() ends a read and a write in flight at once, not as a Kubernetes answer, and sends nothing more", async () => {
    let seen = 0;
    await withProxy(
      () => ({ action: "hang" }),
      async (client) => {
        const read = client.list("Namespace").catch((err: unknown) => err);
        const write = client
          .create("ConfigMap", { metadata: { name: "c", namespace: "default" } })
          .catch((err: unknown) => err);
        await eventually("both requests held by the proxy", () => Promise.resolve(seen === 2));
        const closed = Date.now();
        client.close();
        for (const err of [await read, await write]) {
          // Not a KubeApiError: a pass cut off by its worker's stop records no outcome.
          expect(err).toBeInstanceOf(ClientClosedError);
          expect(isKubeError(err)).toBe(false);
        }
        expect(Date.now() - closed).toBeLessThan(1_000);
        const later = await client.get("Namespace", { name: "default" }).catch((e: unknown) => e);
        expect(later).toBeInstanceOf(ClientClosedError);
        expect(seen).toBe(2);
      },
      30_000,
      () => {
        seen++;
      },
    );
  });
});
