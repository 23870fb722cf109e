/**
 * The worker survives the API server restarting (lifecycle.md §1). Restarting kube-apiserver
 * would disturb every other test file on the shared cluster, so this file starts a cluster of
 * its own, with the chart's cluster RBAC granted to `occ-worker`.
 *
 * A restart is also the real way to a `410 Gone`: the restarted server's watch cache starts at
 * the etcd revision of its first list, so a watch resumed from a resourceVersion seen before the
 * restart is "too old" (an ERROR event with code 410, reason Expired) whenever etcd was written in
 * between — and the server writes its own identity lease as it starts. (A watch from "1" on a
 * fresh cluster gives no 410: the watch cache's window then starts near revision 1, which is why
 * that attempt never provoked one.) A change made while the reflector's requests are held back
 * is then seen only through the relist's difference, not as a watch event.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalCluster, type LocalCluster } from "../../../src/devcluster/local-cluster.js";
import { currentManagedName, type NamespaceId } from "../../../src/domain/index.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import {
  chartClusterRbac,
  createMissing,
  devTenantRolesClusterWide,
} from "../../../src/drivers/kubernetes/rbac-objects.js";
import { RequestCounter } from "../../../src/drivers/kubernetes/client/index.js";
import { KubeTransport } from "../../../src/drivers/kubernetes/client/transport.js";
import {
  Reflector,
  type WatchRestartReason,
} from "../../../src/drivers/kubernetes/watch/reflector.js";
import type { StoreChange } from "../../../src/drivers/kubernetes/watch/store.js";
import { eventually } from "../../harness/kube.js";
import { startControlPlane, type ControlPlane } from "./control-plane.js";
import { callApi } from "../../harness/api.js";
import { sleep } from "../../harness/time.js";
import { lastRequested, quiet } from "./work-at-rest.js";

let dir: string;
let cluster: LocalCluster;
let admin: ObjectClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-restart-"));
  cluster = await startLocalCluster({
    dir: join(dir, "cluster"),
  });
  admin = createObjectClient(loadKubeConfig(cluster.kubeconfigs.admin));
  const user = (name: string) => ({ kind: "User", name }) as const;
  // The chart's cluster rules (rbac-rules.test.ts proves them equal) and, as `occ dev up`
  // does, the tenant roles bound cluster-wide so no per-namespace grant is needed here.
  await createMissing(admin, chartClusterRbac(user("occ-worker"), user("occ-api")));
  await createMissing(admin, devTenantRolesClusterWide(user("occ-worker"), user("occ-api")));
}, 180_000);

afterAll(async () => {
  admin.close();
  await cluster.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("watches on a cluster of their own", () => {
  describe("through the occ worker process", () => {
    let plane: ControlPlane;
    let db: pg.Client;
    beforeAll(async () => {
      plane = await startControlPlane({ kubeconfig: cluster.kubeconfigs["occ-worker"] });
      db = new pg.Client({
        connectionString: plane.common[plane.common.indexOf("--database-url") + 1] ?? "",
      });
      await db.connect();
    }, 120_000);
    afterAll(async () => {
      await db.end();
      await plane.stop();
    });

    it("the worker survives kube-apiserver restarting: every watch restarts (resumed, or relisted on 410 Gone), the change made meanwhile is repaired, only that tenant queued, a Namespace created during the outage backs off and becomes ready", async () => {
      const ready = async (name: string) => {
        const res = await callApi(plane, "POST", "/namespaces", { name });
        expect(res.status).toBe(201);
        const id = (res.body as { data: { id: NamespaceId } }).data.id;
        await eventually("ready", async () => {
          const r = await callApi(plane, "GET", `/namespaces/${id}`);
          return (r.body as { data: { status: string } }).data.status === "ready";
        });
        return id;
      };
      const [a, b] = [await ready("restart-a"), await ready("restart-b")];
      const ns = currentManagedName(a);
      // At rest before the restart, so that a later change of a's or b's work is a requeue by
      // the relists, not a late settle.
      const [restA = 0, restB = 0] = await quiet(plane.db, [a, b]);
      const before = { a: restA, b: restB };
      const policy = { name: "default-deny", namespace: ns };
      const old = await admin.get("NetworkPolicy", policy);

      // Down long enough for every watch of the worker to fail and back off at least once; a
      // Namespace created meanwhile (the API needs only its database) is claimed while the
      // server is away, and its pass backs off until it is back.
      let during = "";
      await cluster.restartApiServer(async () => {
        const res = await callApi(plane, "POST", "/namespaces", { name: "restart-during" });
        expect(res.status).toBe(201);
        during = (res.body as { data: { id: NamespaceId } }).data.id;
        // Down until its pass has been claimed and has backed off, however slowly the worker
        // gets to it on a loaded machine.
        await eventually(
          "the pass of the Namespace created during the outage backed off",
          async () =>
            (
              await db.query<{ code: string | null }>(
                `SELECT details->>'code' AS code FROM audit_events
               WHERE kind = 'lifecycle' AND resource_id = $1`,
                [during],
              )
            ).rows.some((r) => r.code === "KUBERNETES_API_UNAVAILABLE"),
        );
      });
      await admin.delete("NetworkPolicy", policy, { uid: old.metadata.uid ?? "" });
      await eventually(
        "default-deny restored after the restart",
        async () => {
          const np = await admin.find("NetworkPolicy", policy);
          return np !== undefined && np.metadata.uid !== old.metadata.uid;
        },
        90_000,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${plane.workerOutput.slice(-20).join("\n")}`);
      });
      expect(await lastRequested(plane.db, a)).toBeGreaterThan(before.a);
      const view = await callApi(plane, "GET", `/namespaces/${a}`);
      expect((view.body as { data: { status: string } }).data.status).toBe("ready");
      const row = await db.query<{ status: string }>(
        "SELECT status FROM namespaces WHERE id = $1",
        [a],
      );
      expect(row.rows[0]?.status).toBe("ready");
      const metrics = await (await fetch(plane.workerMetricsUrl)).text();
      // Every watch failed while the server was down and was restarted. Whether its resumption
      // then gets 410 Gone depends on timing: until the restarted server's watch cache for that
      // kind is initialized, a watch is served from etcd, where the old revision is still valid
      // (no 410); once it is, the old revision is "too old" (410 → relist). Both are correct
      // recoveries, so this asserts a restart per kind; the 410 path itself is proven
      // deterministically by the reflector test below.
      for (const kind of ["NetworkPolicy", "Namespace"]) {
        const restarts = [
          ...metrics.matchAll(
            /^occ_watch_restarts_total\{kind="([A-Za-z]+)",reason="([a-z]+)"\} (\d+)$/gm,
          ),
        ]
          .filter((m) => m[1] === kind)
          .reduce((sum, m) => sum + Number(m[3]), 0);
        expect(restarts, `${kind} watch restarts`).toBeGreaterThan(0);
      }
      // The relists' differences named tenant a only: b's work was not queued again.
      expect(await lastRequested(plane.db, b)).toBe(before.b);
      // The Namespace created during the outage: its pass was claimed while the server was
      // away and backed off (KUBERNETES_API_UNAVAILABLE, retried). Known limit (docs/operations.md,
      // "High availability"): right after the restart the server may answer 403 until its RBAC
      // caches are loaded, which fails a first placement permanently (placement.md §7); the
      // documented remedy, an administrator's retry, then places it.
      const statusOf = async () =>
        (
          (await callApi(plane, "GET", `/namespaces/${during}`)).body as {
            data: { status: string; statusReason: { code: string } | null };
          }
        ).data;
      await eventually(
        "the Namespace created during the outage settled",
        async () => ["ready", "failed"].includes((await statusOf()).status),
        90_000,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${plane.workerOutput.slice(-20).join("\n")}`);
      });
      const settled = await statusOf();
      if (settled.status === "failed") {
        expect(settled.statusReason?.code).toBe("KUBERNETES_API_REJECTED");
        expect((await callApi(plane, "POST", `/namespaces/${during}/retry`)).status).toBe(202);
      }
      await eventually("the Namespace created during the outage ready", async () => {
        return (await statusOf()).status === "ready";
      });
      const trail = await db.query<{ to: string; code: string | null }>(
        `SELECT details->>'to' AS to, details->>'code' AS code FROM audit_events
         WHERE kind = 'lifecycle' AND resource_id = $1 ORDER BY occurred_at, id`,
        [during],
      );
      expect(trail.rows.map((r) => r.code)).toContain("KUBERNETES_API_UNAVAILABLE");
      expect(trail.rows.filter((r) => r.to === "ready")).toHaveLength(1);
      expect(trail.rows.at(-1)?.to).toBe("ready");
      expect(
        await admin.find("Namespace", { name: currentManagedName(during as NamespaceId) }),
      ).toBeDefined();
    }, 300_000);
  });

  it("a reflector resumed after the restart gets 410 Gone, relists, and reports exactly what changed meanwhile", async () => {
    const ns = `relist-${Date.now().toString(36)}`;
    await admin.create("Namespace", { metadata: { name: ns } });
    const policy = (name: string) => ({
      metadata: { name, namespace: ns },
      spec: { podSelector: {}, policyTypes: ["Ingress"] },
    });
    await admin.create("NetworkPolicy", policy("stays"));
    await admin.create("NetworkPolicy", policy("goes"));
    await admin.create("NetworkPolicy", policy("edited"));
    const events: ({ restart: WatchRestartReason } | { change: StoreChange })[] = [];
    const transport = new HeldTransport(loadKubeConfig(cluster.kubeconfigs["occ-worker"]), {
      counter: new RequestCounter(),
    });
    // The reflector's requests are held from before the restart until the changes below are
    // made: they can only reach it through the relist that the 410 forces, never as watch
    // events. (A long backoff did this by timing, and lost the race whenever the restarted
    // server took longer to answer than the backoff.)
    const r = new Reflector({
      transport,
      kind: "NetworkPolicy",
      onChange: (change) => events.push({ change }),
      onRestart: (restart) => events.push({ restart }),
      minBackoffMs: 200,
      maxBackoffMs: 1_000,
    });
    r.start();
    try {
      expect(await r.waitForSync(30_000)).toBe(true);
      await eventually("watching", () => Promise.resolve(r.ready));
      transport.hold();
      await cluster.restartApiServer(() => sleep(1_000));
      const failedAt = events.length;
      const goes = await admin.get("NetworkPolicy", {
        name: "goes",
        namespace: ns,
      });
      await admin.delete(
        "NetworkPolicy",
        { name: "goes", namespace: ns },
        { uid: goes.metadata.uid ?? "" },
      );
      await admin.patch(
        "NetworkPolicy",
        { name: "edited", namespace: ns },
        { spec: { policyTypes: ["Egress"] } },
        { type: "merge" },
      );
      await admin.create("NetworkPolicy", policy("added"));
      expect(transport.heldBack).toBeGreaterThan(0);
      transport.release();
      await eventually(
        "relisted after 410 Gone",
        () =>
          Promise.resolve(events.some((e) => "restart" in e && e.restart === "gone") && r.ready),
        60_000,
      );
      await eventually("the relist's difference reported", () =>
        Promise.resolve(
          events.filter((e) => "change" in e && e.change.namespace === ns).length >= 3,
        ),
      );
      const after = events.slice(failedAt);
      const gone = after.findIndex((e) => "restart" in e && e.restart === "gone");
      expect(gone).toBeGreaterThanOrEqual(0);
      // Only the three differences, each after the 410: nothing for the unchanged policy.
      const mine = after
        .map((e, i) => ({ e, i }))
        .filter(({ e }) => "change" in e && e.change.namespace === ns);
      expect(mine.every(({ i }) => i > gone)).toBe(true);
      const summary = mine
        .map(({ e }) => ("change" in e ? e.change : null))
        .map((c) => ({
          name: c?.name,
          previous: c?.previous !== null,
          current: c?.current !== null,
        }))
        .sort((x, y) => String(x.name).localeCompare(String(y.name)));
      expect(summary).toEqual([
        { name: "added", previous: false, current: true },
        { name: "edited", previous: true, current: true },
        { name: "goes", previous: true, current: false },
      ]);
      expect(r.store.get(ns, "goes")).toBeUndefined();
      expect(r.store.get(ns, "stays")).toBeDefined();
    } finally {
      transport.release();
      await r.stop();
      transport.close();
    }
  });
});

/**
 * The real transport, whose new requests and streams can be held back until released: the
 * reflector then cannot see anything between `hold()` and `release()` but through what it asks
 * afterwards.
 */
class HeldTransport extends KubeTransport {
  heldBack = 0;
  private gate: Promise<void> | null = null;
  private open: () => void = () => undefined;

  hold(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.gate = null;
    this.open();
  }

  override async call(c: Parameters<KubeTransport["call"]>[0]): Promise<unknown> {
    await this.wait();
    return super.call(c);
  }

  override async stream(...args: Parameters<KubeTransport["stream"]>): Promise<void> {
    await this.wait();
    return super.stream(...args);
  }

  private async wait(): Promise<void> {
    if (this.gate === null) return;
    this.heldBack++;
    await this.gate;
  }
}
