import { describe, expect, it } from "vitest";
import { LABELS, currentManagedName } from "../../../src/domain/index.js";
import { eventually } from "../../harness/kube.js";
import { bindTenantRole, revokeTenantRole } from "../../harness/rbac.js";
import { admin, prepareExternal, readNamespace } from "../compute/fixtures.js";
import { controlPlaneForFile, type ControlPlane } from "./control-plane.js";
import { callApi, untilNamespace } from "../../harness/api.js";

interface NamespaceView {
  id: string;
  status: string;
  placement: { mode: string; kubernetesNamespace: string | null; uid: string | null };
  statusReason: { code: string; message: string } | null;
}

let plane: ControlPlane;
let apiUrl: string;
let apiKey: string;
let workerMetricsUrl: string;

async function call(method: string, path: string, body?: unknown) {
  const res = await callApi({ apiUrl, apiKey }, method, path, body);
  return { status: res.status, json: res.body as { data: NamespaceView } };
}

const until = (id: string, what: string, ok: (n: NamespaceView | null) => boolean) =>
  untilNamespace({ apiUrl, apiKey }, id, what, ok);

/** The tenant waits for the worker's RoleBinding in its namespace. */
const pendingOnPermissions = (n: NamespaceView | null) =>
  n?.statusReason?.code === "KUBERNETES_PERMISSION_PENDING";

/** Grants the worker its role in `namespace`, then waits until the tenant is ready. */
async function grantUntilReady(id: string, namespace: string, what = "ready"): Promise<void> {
  await bindTenantRole(namespace, "occ-worker");
  await until(id, what, (n) => n?.status === "ready");
}

controlPlaneForFile({}, (started) => {
  plane = started;
  ({ apiUrl, apiKey, workerMetricsUrl } = plane);
});

describe("API and worker as separate processes, real cluster and PostgreSQL", () => {
  it("managed: provisioning → pending on the RoleBinding → ready → deleted to a tombstone", async () => {
    const created = await call("POST", "/namespaces", { name: "support-e2e" });
    expect(created.status).toBe(201);
    expect(created.json.data.status).toBe("provisioning");
    const id = created.json.data.id;
    const name = currentManagedName(id);

    await until(id, "pending on the worker RoleBinding", pendingOnPermissions);
    await grantUntilReady(id, name);
    const ready = (await call("GET", `/namespaces/${id}`)).json.data;
    const ns = await readNamespace(name);
    expect(ready.placement).toEqual({
      mode: "managed",
      kubernetesNamespace: name,
      uid: ns?.metadata?.uid,
      observedUid: ns?.metadata?.uid,
    });
    expect(
      await admin.find("NetworkPolicy", { name: "default-deny", namespace: name }),
    ).toBeDefined();

    expect((await call("DELETE", `/namespaces/${id}`)).status).toBe(202);
    await until(id, "tombstoned", (n) => n === null);
    await eventually(
      "managed namespace gone",
      async () => (await readNamespace(name)) === undefined,
    );
  });

  it("external: pending with the reason visible, ready once granted, deleted with the namespace retained", async () => {
    const prepared = await prepareExternal();
    const selected = prepared.metadata?.name ?? "";
    const created = await call("POST", "/namespaces", {
      name: "cs-e2e",
      existingNamespace: selected,
    });
    expect(created.status).toBe(201);
    const id = created.json.data.id;
    await until(id, "pending", pendingOnPermissions);
    const pending = (await call("GET", `/namespaces/${id}`)).json.data;
    expect(pending.status).toBe("provisioning");
    expect(pending.statusReason?.message).toContain(selected);

    await grantUntilReady(id, selected);

    expect((await call("DELETE", `/namespaces/${id}`)).status).toBe(202);
    await until(id, "tombstoned", (n) => n === null);
    const after = await admin.get("Namespace", { name: selected });
    expect(after.metadata.uid).toBe(prepared.metadata?.uid);
    expect(after.metadata.labels?.[LABELS.namespace]).toBe(id);
    expect(after.metadata.labels?.[LABELS.managedBy]).toBe("Helm");
    expect(await admin.list("NetworkPolicy", { namespace: selected })).toEqual([]);
  });

  // Found by the R5 model (docs/reliability.md) for external tenants, and true of managed ones
  // whose roles the operator grants: the passes of a ready tenant are served from the watch
  // caches and write nothing, so a revocation went unnoticed (lifecycle.md §1–2).
  it.each([
    ["external", "revoke-e2e"],
    ["managed", "revoke-managed-e2e"],
  ] as const)(
    "%s: a revoked worker grant is reported (degraded, pending on permissions), ready again once granted",
    async (mode, name) => {
      const prepared = mode === "external" ? await prepareExternal() : undefined;
      const created = await call("POST", "/namespaces", {
        name,
        ...(prepared === undefined ? {} : { existingNamespace: prepared.metadata?.name }),
      });
      const id = created.json.data.id;
      const namespace = prepared?.metadata?.name ?? currentManagedName(id);
      if (prepared === undefined) {
        await until(id, "pending", pendingOnPermissions);
      }
      await grantUntilReady(id, namespace);
      const policies = await admin.list("NetworkPolicy", { namespace });
      await revokeTenantRole(namespace, "occ-worker");
      await until(
        id,
        "degraded on permissions",
        (n) => n?.status === "degraded" && n.statusReason?.code === "KUBERNETES_PERMISSION_PENDING",
      );
      // Nothing written while it was not allowed to.
      const after = await admin.list("NetworkPolicy", { namespace });
      expect(after.map((p) => p.metadata.resourceVersion)).toEqual(
        policies.map((p) => p.metadata.resourceVersion),
      );
      await grantUntilReady(id, namespace, "ready again");
    },
  );

  it("exposes placements and queue depth on the API's /metrics and passes and Kubernetes requests on the worker's", async () => {
    const created = await call("POST", "/namespaces", { name: "metrics-e2e" });
    const id = created.json.data.id;
    await grantUntilReady(id, currentManagedName(id));
    const api = await (await fetch(`${apiUrl}/metrics`)).text();
    expect(api).toMatch(
      /occ_namespace_placements\{mode="managed",status="ready",reason=""\} [1-9]/,
    );
    expect(api).toMatch(/occ_work_queue_depth\{kind="namespace.ensure",state="queued"\} \d+/);
    // Agent work is reported too, idle kinds as zeros.
    expect(api).toMatch(/occ_work_queue_depth\{kind="agent.deploy",state="queued"\} \d+/);
    expect(api).toMatch(/occ_work_queue_depth\{kind="agent.teardown",state="claimed"\} \d+/);
    const worker = await (await fetch(workerMetricsUrl)).text();
    expect(worker).toMatch(
      /occ_reconcile_duration_seconds_count\{kind="namespace.ensure",outcome="complete"\} [1-9]/,
    );
    expect(worker).toMatch(/occ_kubernetes_requests_total\{verb="create",code="201"\} [1-9]/);
    expect(worker).toMatch(/process_resident_memory_bytes \d+/);
  });
});
