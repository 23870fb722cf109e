/**
 * R4 (quality.md §3): the Compute Driver talks to the real API server through a proxy that
 * injects faults at random — 429 with Retry-After, 500, 503, 409 on writes, hung requests
 * (the client's deadline ends them) and dropped connections. Passes are repeated as the worker
 * would until every tenant converges, and the invariants hold: every pass ends in one closed
 * outcome (never a throw), every write carries its precondition (a resourceVersion on each
 * patch or apply, a UID on each delete), one namespace per tenant, external namespaces keep
 * the operator's metadata and lose only OCC's objects, managed ones are deleted.
 * OCC_R4_SEED replays a run; the seed is in the test name.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LABELS,
  currentManagedName,
  type DeleteNamespaceResult,
  type EnsureNamespaceResult,
  type NamespaceId,
} from "../../../src/domain/index.js";
import type { NamespacePassInput } from "../../../src/drivers/compute.js";
import {
  createObjectClient,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import { KubernetesComputeDriver } from "../../../src/drivers/kubernetes/compute/driver.js";
import { startFaultProxy, type Fault, type FaultProxy } from "../../harness/fault-proxy.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import {
  admin,
  external,
  managed,
  newTenant,
  prepareExternal,
  readNamespace,
  settings,
} from "./fixtures.js";

const SEED = Number(process.env.OCC_R4_SEED ?? Date.now() % 100_000);
const FAULT_RATE = 0.3;
const MAX_PASSES = 60;

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with OCC_R4_SEED. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const random = prng(SEED);
const isWrite = (method: string) => method !== "GET";
const injected = new Map<string, number>();
function plan(req: { method: string }): Fault {
  const fault = choose(req);
  const key = fault.action === "status" ? String(fault.status) : fault.action;
  if (fault.action !== "pass") injected.set(key, (injected.get(key) ?? 0) + 1);
  return fault;
}
function choose(req: { method: string }): Fault {
  if (random() >= FAULT_RATE) return { action: "pass" };
  const faults: Fault[] = [
    { action: "status", status: 429, retryAfterSeconds: 0 },
    { action: "status", status: 500 },
    { action: "status", status: 503 },
    { action: "hang" },
    { action: "drop" },
    ...(isWrite(req.method) ? [{ action: "status", status: 409 } as const] : []),
  ];
  return faults[Math.floor(random() * faults.length)] ?? { action: "pass" };
}

let proxy: FaultProxy;
let client: ObjectClient;
let driver: KubernetesComputeDriver;

beforeAll(async () => {
  await grantChartClusterRoles();
  proxy = await startFaultProxy(plan);
  client = createObjectClient(proxy.kubeConfig("occ-worker"), {
    timeoutMs: 1_500,
    maxBackoffMs: 300,
  });
  driver = new KubernetesComputeDriver({ client, settings: settings() });
});

afterAll(async () => {
  client.close();
  await proxy.close();
});

interface Tenant {
  readonly id: NamespaceId;
  readonly name: string;
  readonly external: boolean;
  boundUid: string | null;
}

const inputOf = (t: Tenant): NamespacePassInput =>
  t.external ? external(t.id, t.name, t.boundUid) : managed(t.id, t.boundUid);

/** One pass; a throw would break the closed-outcome contract and fails the test. */
async function ensure(t: Tenant): Promise<EnsureNamespaceResult> {
  const result = await driver.ensureNamespace(inputOf(t));
  if (result.outcome === "ready") t.boundUid = result.uid;
  return result;
}

describe(`R4: random faults between the Compute Driver and the API server (seed ${SEED})`, () => {
  it("converges with every write guarded and nothing foreign touched", async () => {
    const prepared = await Promise.all([prepareExternal(), prepareExternal()]);
    const tenants: Tenant[] = [
      ...prepared.map((ns) => ({
        id: newTenant(),
        name: ns.metadata?.name ?? "",
        external: true,
        boundUid: null,
      })),
      ...[0, 1, 2].map(() => {
        const id = newTenant();
        return { id, name: currentManagedName(id), external: false, boundUid: null };
      }),
    ];
    for (const t of tenants.filter((x) => x.external)) await bindTenantRole(t.name, "occ-worker");

    // Provision: passes until ready; the operator grants each managed namespace once it exists.
    const granted = new Set(tenants.filter((t) => t.external).map((t) => t.name));
    const outcomes: string[] = [];
    for (const t of tenants) {
      let result = await ensure(t);
      for (let i = 0; i < MAX_PASSES && result.outcome !== "ready"; i++) {
        outcomes.push(`${result.outcome}:${result.code}`);
        expect(result.outcome === "failed" && !result.retryable, JSON.stringify(result)).toBe(
          false,
        );
        if (!granted.has(t.name) && (await readNamespace(t.name)) !== undefined) {
          await bindTenantRole(t.name, "occ-worker");
          granted.add(t.name);
        }
        result = await ensure(t);
      }
      expect(result, `${t.name} after ${MAX_PASSES} passes`).toMatchObject({ outcome: "ready" });
    }
    for (const t of tenants) {
      const claimants = await admin.list("Namespace", {
        labelSelector: `${LABELS.namespace}=${t.id}`,
      });
      expect(claimants.map((n) => n.metadata.name)).toEqual([t.name]);
    }

    // Tear down: passes until deleted.
    for (const t of tenants) {
      let result: DeleteNamespaceResult = await driver.deleteNamespace(inputOf(t));
      for (let i = 0; i < MAX_PASSES && result.outcome !== "deleted"; i++) {
        outcomes.push(`${result.outcome}:${result.code}`);
        expect(result.outcome === "failed" && !result.retryable, JSON.stringify(result)).toBe(
          false,
        );
        await new Promise((r) => setTimeout(r, 100));
        result = await driver.deleteNamespace(inputOf(t));
      }
      expect(result, `${t.name} teardown`).toMatchObject({ outcome: "deleted" });
    }

    for (const [i, t] of tenants.filter((x) => x.external).entries()) {
      const ns = await readNamespace(t.name);
      expect(ns?.metadata?.uid).toBe(prepared[i]?.metadata?.uid);
      expect(ns?.metadata?.deletionTimestamp).toBeUndefined();
      expect(ns?.metadata?.labels).toMatchObject({ team: "support", [LABELS.managedBy]: "Helm" });
      expect(await admin.list("NetworkPolicy", { namespace: t.name })).toEqual([]);
    }
    for (const t of tenants.filter((x) => !x.external)) {
      const ns = await readNamespace(t.name);
      expect(ns === undefined || ns.metadata?.deletionTimestamp !== undefined).toBe(true);
    }

    // Every write the Driver sent carried its precondition.
    const writes = proxy.seen.filter((r) => r.method === "PATCH" || r.method === "DELETE");
    expect(writes.length).toBeGreaterThan(0);
    for (const w of writes) {
      if (w.method === "DELETE")
        expect(w.body, w.path).toMatch(/"preconditions":\{[^}]*"uid":"[0-9a-f-]{36}"/);
      else expect(w.body, w.path).toMatch(/"resourceVersion":"\d+"/);
    }
    // The faults really happened (a run without them would prove nothing).
    const total = [...injected.values()].reduce((a, b) => a + b, 0);
    expect(total, JSON.stringify(Object.fromEntries(injected))).toBeGreaterThanOrEqual(10);
  }, 300_000);
});
