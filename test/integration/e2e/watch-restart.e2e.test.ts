/**
 * The worker survives the API server restarting (lifecycle.md §1). Restarting kube-apiserver
 * would disturb every other test file on the shared cluster, so this file starts a cluster of
 * its own, with the chart's cluster RBAC granted to `occ-worker`.
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
import { reconcileWorkKeys } from "../../../src/main/namespace-pass-request.js";
import { eventually } from "../../harness/kube.js";
import { callApi, startControlPlane, type ControlPlane } from "./control-plane.js";

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

const sleep = (ms: number) =>
  new Promise<void>((r) => {
    setTimeout(r, ms);
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

    it("the worker survives kube-apiserver restarting; a change made as it returns queues the tenant's pass", async () => {
      const res = await callApi(plane, "POST", "/namespaces", { name: "restart-a" });
      expect(res.status).toBe(201);
      const id = (res.body as { data: { id: NamespaceId } }).data.id;
      await eventually("ready", async () => {
        const r = await callApi(plane, "GET", `/namespaces/${id}`);
        return (r.body as { data: { status: string } }).data.status === "ready";
      });
      const ns = currentManagedName(id);
      const lastRequested = async () =>
        (
          await db.query<{ at: Date | null }>(
            "SELECT max(updated_at) AS at FROM work_items WHERE idempotency_key = ANY($1)",
            [reconcileWorkKeys(id)],
          )
        ).rows[0]?.at?.getTime() ?? 0;
      await sleep(3_000);
      const before = await lastRequested();

      // Down long enough for every watch of the worker to fail and back off at least once.
      await cluster.restartApiServer(() => sleep(3_000));
      const policy = await admin.get<{ metadata: { name: string; uid: string } }>("NetworkPolicy", {
        name: "default-deny",
        namespace: ns,
      });
      await admin.delete(
        "NetworkPolicy",
        { name: "default-deny", namespace: ns },
        { uid: policy.metadata.uid },
      );
      await eventually(
        "the tenant's pass is queued after the restart",
        async () => (await lastRequested()) > before,
        60_000,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${plane.workerOutput.slice(-20).join("\n")}`);
      });
      const metrics = await (await fetch(plane.workerMetricsUrl)).text();
      // Every watch failed while the server was down and resumed afterwards.
      expect(metrics).toMatch(
        /occ_watch_restarts_total\{kind="NetworkPolicy",reason="error"\} [1-9]/,
      );
    });
  });
});
