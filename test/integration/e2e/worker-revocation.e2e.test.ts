/**
 * Re-authorization through the real processes (control-plane.md §5): a Namespace is created
 * through `occ api` by a service principal while no worker runs; then, before any worker
 * claims it, the principal loses its grant or is deleted. When `occ worker` starts, the pass
 * re-authorizes the frozen actor (in the claim's own statement) and stops before the Driver:
 * the Namespace fails with `AUTHORIZATION_DENIED` or `ACTOR_REVOKED`, no Kubernetes namespace
 * is created for it, and the failure is audited. A third principal, untouched, shows the same
 * worker does place what is still allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABELS, currentManagedName } from "../../../src/domain/index.js";
import { isServerNamespaceId } from "../../../src/domain/placement/ids.js";
import { formatLane } from "../../../src/work/lanes.js";
import { eventually } from "../../harness/kube.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import { admin, readNamespace } from "../compute/fixtures.js";
import { startControlPlane, type ControlPlane } from "./control-plane.js";
import { callApi } from "../../harness/api.js";
import { tenantsOf } from "./tenants.js";

let plane: ControlPlane;
let tenants: ReturnType<typeof tenantsOf>;

type Body = { data?: Record<string, unknown> };

/** One request as `key` (the bootstrap administrator's by default). */
async function call(method: string, path: string, body?: unknown, key = plane.apiKey) {
  const res = await callApi({ apiUrl: plane.apiUrl, apiKey: key }, method, path, body);
  return { status: res.status, body: res.body as Body };
}

/**
 * A service principal allowed `namespace:create` (its own role and binding) and its key, and
 * the Namespace `name` it created through the API (queued, no worker running yet).
 */
async function createdBy(label: string): Promise<{
  principalId: string;
  bindingId: string;
  namespaceId: string;
}> {
  const principal = await call("POST", "/principals", { kind: "service", name: label });
  const role = await call("POST", "/roles", {
    name: `${label}-creator`,
    permissions: [{ action: "create", kind: "namespace" }],
  });
  const principalId = String(principal.body.data?.id);
  const binding = await call("POST", "/bindings", {
    principalId,
    roleId: String(role.body.data?.id),
  });
  const issued = await call("POST", `/principals/${principalId}/api-keys`, {});
  expect([principal.status, role.status, binding.status, issued.status]).toEqual([
    201, 201, 201, 201,
  ]);
  const created = await call("POST", "/namespaces", { name: label }, String(issued.body.data?.key));
  expect(created.status).toBe(201);
  expect(created.body.data?.status).toBe("provisioning");
  return {
    principalId,
    bindingId: String(binding.body.data?.id),
    namespaceId: String(created.body.data?.id),
  };
}

/** The tenant's work item as the queue left it, and its lifecycle audit events. */
async function recorded(namespaceId: string) {
  if (!isServerNamespaceId(namespaceId)) throw new Error(`not a Namespace ID: ${namespaceId}`);
  const work = await plane.db.query<{ state: string; attempt_count: number; actor: string }>(
    "SELECT state, attempt_count, actor FROM work_items WHERE subject = $1",
    [formatLane({ of: "namespace", id: namespaceId })],
  );
  const audit = await plane.db.query<{ actor: string; outcome: string; code: string | null }>(
    `SELECT actor, outcome, details->>'code' AS code FROM audit_events
     WHERE resource_id = $1 AND action = 'namespaces.lifecycle.ensure'`,
    [namespaceId],
  );
  return { work: work.rows, audit: audit.rows };
}

/** Every Kubernetes namespace carrying the tenant's label (there must be none). */
async function labelled(namespaceId: string): Promise<string[]> {
  const found = await admin.list("Namespace", {
    labelSelector: `${LABELS.namespace}=${namespaceId}`,
  });
  return found.map((n) => n.metadata.name);
}

beforeAll(async () => {
  await grantChartClusterRoles();
  // No worker yet: every Namespace below stays queued until the grants have changed.
  plane = await startControlPlane({ workers: 0 });
  tenants = tenantsOf(plane);
}, 120_000);

afterAll(async () => {
  await plane.stop();
});

describe("re-authorization through occ api + occ worker", () => {
  it("a grant revoked or a principal deleted between create and claim fails the Namespace before the Driver; an untouched one is placed", async () => {
    const unbound = await createdBy("revoked-grant");
    const deleted = await createdBy("deleted-principal");
    const kept = await createdBy("kept-grant");

    expect((await call("DELETE", `/bindings/${unbound.bindingId}`)).status).toBe(200);
    expect((await call("DELETE", `/principals/${deleted.principalId}`)).status).toBe(200);
    for (const t of [unbound, deleted, kept]) {
      expect((await recorded(t.namespaceId)).work).toEqual([
        { state: "queued", attempt_count: 0, actor: expect.any(String) as string },
      ]);
    }

    await plane.startWorker(0);

    // The untouched principal's Namespace is placed: the worker does run passes.
    const keptName = currentManagedName(kept.namespaceId);
    await eventually(
      `${keptName} created`,
      async () => (await readNamespace(keptName)) !== undefined,
    );
    await bindTenantRole(keptName, "occ-worker");
    await tenants.until(kept.namespaceId, "ready", (n) => n.status === "ready");

    const cases = [
      { tenant: unbound, code: "AUTHORIZATION_DENIED" },
      { tenant: deleted, code: "ACTOR_REVOKED" },
    ] as const;
    for (const { tenant, code } of cases) {
      const view = await tenants.until(
        tenant.namespaceId,
        `failed with ${code}`,
        (n) => n.status === "failed",
      );
      expect(view.statusReason?.code).toBe(code);
      expect(await tenants.row(tenant.namespaceId)).toMatchObject({
        status: "failed",
        status_code: code,
        kubernetes_uid: null,
      });
      const { work, audit } = await recorded(tenant.namespaceId);
      expect(work).toEqual([
        { state: "failed_permanent", attempt_count: 1, actor: tenant.principalId },
      ]);
      expect(audit).toEqual([{ actor: tenant.principalId, outcome: "failure", code }]);
      // Stopped before the Driver: nothing was created in the cluster for it.
      expect(await readNamespace(currentManagedName(tenant.namespaceId))).toBeUndefined();
      expect(await labelled(tenant.namespaceId)).toEqual([]);
    }
    expect(await labelled(kept.namespaceId)).toEqual([keptName]);
  }, 120_000);
});
