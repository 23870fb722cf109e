/**
 * R3 (quality.md §3), at CI size: the worker process is SIGKILLed at random moments while
 * Namespaces — managed and external — are provisioned and then deleted. Every one converges
 * (ready, then tombstoned); no tenant ends up with two namespaces or none; no external
 * namespace is deleted or loses what the operator put on it; OCC's own objects are gone from
 * the external namespaces afterwards. Leases are 2 s so a killed worker's claims come back
 * quickly. The larger count is set with OCC_R3_TENANTS.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABELS, currentManagedName } from "../../../src/domain/index.js";
import { eventually } from "../../harness/kube.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import { admin, prepareExternal, readNamespace } from "../compute/fixtures.js";
import { startControlPlane, type ControlPlane } from "./control-plane.js";
import { callApi } from "../../harness/api.js";
import { sleep } from "../../harness/time.js";

const MANAGED = Number(process.env.OCC_R3_TENANTS ?? 8);
const EXTERNAL = 3;
const KILLS = 4;

let plane: ControlPlane;

interface View {
  id: string;
  status: string;
  statusReason: { code: string; message: string } | null;
}

async function call(method: string, path: string, body?: unknown) {
  const res = await callApi(plane, method, path, body);
  return { status: res.status, json: res.body as { data: View } };
}

/** Kills and restarts the worker `times` times at random 0.3–1.5 s intervals. */
async function chaos(times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await sleep(300 + Math.random() * 1_200);
    await plane.killWorker();
    await plane.startWorker();
  }
}

beforeAll(async () => {
  await grantChartClusterRoles();
  plane = await startControlPlane({ workerConfig: { leaseSeconds: 2, concurrency: 4 } });
}, 120_000);

afterAll(async () => {
  await plane.stop();
});

describe("R3: the worker SIGKILLed at random points", () => {
  it("every Namespace converges, nothing is orphaned, duplicated, or taken from the operator", async () => {
    const externals = await Promise.all(Array.from({ length: EXTERNAL }, () => prepareExternal()));
    const externalNames = externals.map((n) => n.metadata?.name ?? "");
    for (const name of externalNames) await bindTenantRole(name, "occ-worker");

    const ids: { id: string; k8s: string; external: boolean }[] = [];
    for (let i = 0; i < MANAGED; i++) {
      const r = await call("POST", "/namespaces", { name: `r3-managed-${i}` });
      expect(r.status).toBe(201);
      ids.push({ id: r.json.data.id, k8s: currentManagedName(r.json.data.id), external: false });
    }
    for (const [i, name] of externalNames.entries()) {
      const r = await call("POST", "/namespaces", {
        name: `r3-external-${i}`,
        existingNamespace: name,
      });
      expect(r.status).toBe(201);
      ids.push({ id: r.json.data.id, k8s: name, external: true });
    }

    // The operator grants the worker in each managed namespace once OCC created it.
    const bound = new Set<string>(externalNames);
    const granting = { on: true };
    const granter = (async () => {
      while (granting.on) {
        for (const t of ids) {
          if (bound.has(t.k8s) || (await readNamespace(t.k8s)) === undefined) continue;
          await bindTenantRole(t.k8s, "occ-worker");
          bound.add(t.k8s);
        }
        await sleep(200);
      }
    })();

    await chaos(KILLS);
    const statuses = async () =>
      Promise.all(
        ids.map(async (t) => ({
          ...t,
          view: (await call("GET", `/namespaces/${t.id}`)).json.data,
        })),
      );
    await eventually(
      "every Namespace ready after the kills",
      async () => (await statuses()).every((s) => s.view.status === "ready"),
      120_000,
    );
    granting.on = false;
    await granter;

    // Exactly one namespace per tenant, and it is the expected one.
    for (const t of ids) {
      const claimants = await admin.list("Namespace", {
        labelSelector: `${LABELS.namespace}=${t.id}`,
      });
      expect(claimants.map((n) => n.metadata.name)).toEqual([t.k8s]);
    }

    for (const t of ids) expect((await call("DELETE", `/namespaces/${t.id}`)).status).toBe(202);
    await chaos(KILLS);
    await eventually(
      "every Namespace tombstoned after the kills",
      async () => {
        const answers = await Promise.all(ids.map((t) => call("GET", `/namespaces/${t.id}`)));
        return answers.every((a) => a.status === 404);
      },
      120_000,
    );

    // External namespaces stay, with everything the operator put there; OCC's objects are gone.
    for (const [i, name] of externalNames.entries()) {
      const ns = await readNamespace(name);
      expect(ns?.metadata?.deletionTimestamp).toBeUndefined();
      expect(ns?.metadata?.labels).toMatchObject({ team: "support", [LABELS.managedBy]: "Helm" });
      expect(ns?.metadata?.uid).toBe(externals[i]?.metadata?.uid);
      expect(await admin.list("NetworkPolicy", { namespace: name })).toEqual([]);
      expect(
        await admin.find("ResourceQuota", { name: "openclaw-quota", namespace: name }),
      ).toBeUndefined();
    }
    // Managed namespaces are deleted (or finishing termination), never left claimed and alive.
    for (const t of ids.filter((x) => !x.external)) {
      const ns = await readNamespace(t.k8s);
      expect(ns === undefined || ns.metadata?.deletionTimestamp !== undefined).toBe(true);
    }
  }, 400_000);
});
