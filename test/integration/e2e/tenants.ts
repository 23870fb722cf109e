/**
 * Reading a platform Namespace back through the real `occ api` process, its database row and
 * the Events the worker recorded — the three views every lifecycle and watch e2e test asserts —
 * and preparing ready managed and external tenants on the shared cluster.
 */
import { expect } from "vitest";
import { currentManagedName, LABELS, type K8sNamespace } from "../../../src/domain/index.js";
import { eventually } from "../../harness/kube.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { admin, prepareExternal, readNamespace } from "../compute/fixtures.js";
import { type ControlPlane } from "./control-plane.js";
import { callApi, untilNamespace } from "../../harness/api.js";
import { ORPHAN_EVENT_REASON } from "../../../src/domain/placement/orphans.js";

export interface NamespaceView {
  id: string;
  status: string;
  placement: { uid: string | null; observedUid: string | null };
  statusReason: { code: string; message: string } | null;
  lastReconciledAt: string | null;
}

export interface Tenant {
  readonly id: string;
  readonly namespace: string;
}

/** The view of one control plane's tenants. */
export function tenantsOf(plane: ControlPlane) {
  async function get(id: string): Promise<NamespaceView> {
    const res = await callApi(plane, "GET", `/namespaces/${id}`);
    return (res.body as { data: NamespaceView }).data;
  }

  /** Polls `GET /namespaces/{id}` until `ok`; the failure names the last view seen. */
  async function until(
    id: string,
    what: string,
    ok: (n: NamespaceView) => boolean,
    timeoutMs = 90_000,
  ): Promise<NamespaceView> {
    const view = await untilNamespace<NamespaceView>(
      plane,
      id,
      what,
      (n) => n !== null && ok(n),
      timeoutMs,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${plane.workerOutput.slice(-15).join("\n")}`);
    });
    if (view === null) throw new Error(`${id} ${what}: the Namespace is gone`);
    return view;
  }

  /** The tenant's row as the worker left it. */
  async function row(id: string) {
    const res = await plane.db.query<{
      status: string;
      status_code: string | null;
      kubernetes_uid: string | null;
      observed_kubernetes_uid: string | null;
    }>(
      "SELECT status, status_code, kubernetes_uid, observed_kubernetes_uid FROM namespaces WHERE id = $1",
      [id],
    );
    return res.rows[0];
  }

  async function createManaged(name: string): Promise<Tenant> {
    const res = await callApi(plane, "POST", "/namespaces", { name });
    expect(res.status).toBe(201);
    const id = (res.body as { data: NamespaceView }).data.id;
    return { id, namespace: currentManagedName(id) };
  }

  /** A managed tenant made ready the way an operator does: the worker's RoleBinding granted. */
  async function readyManaged(name: string): Promise<Tenant> {
    const created = await createManaged(name);
    await eventually(
      `${created.namespace} created`,
      async () => (await readNamespace(created.namespace)) !== undefined,
    );
    await bindTenantRole(created.namespace, "occ-worker");
    await until(created.id, "ready", (n) => n.status === "ready");
    return created;
  }

  /** An operator-prepared namespace selected as an external tenant, ready. */
  async function readyExternal(name: string): Promise<Tenant> {
    const ns = await prepareExternal();
    const namespace = ns.metadata?.name ?? "";
    await bindTenantRole(namespace, "occ-worker");
    const res = await callApi(plane, "POST", "/namespaces", {
      name,
      existingNamespace: namespace,
    });
    const id = (res.body as { data: NamespaceView }).data.id;
    await until(id, "ready", (n) => n.status === "ready");
    return { id, namespace };
  }

  /**
   * Deletes the tenant's namespace out of band (UID precondition) and waits until its view
   * reports KUBERNETES_NAMESPACE_MISSING (while it terminates it may first read inactive or
   * pending); returns that view.
   */
  async function deletedOutOfBand(tenant: Tenant): Promise<NamespaceView> {
    await deleteNamespaceAndWait(tenant.namespace);
    return until(
      tenant.id,
      "degraded, missing",
      (v) => v.statusReason?.code === "KUBERNETES_NAMESPACE_MISSING",
    );
  }

  return { get, until, row, createManaged, readyManaged, readyExternal, deletedOutOfBand };
}

/** The reasons of the Events the worker recorded on `namespace`, oldest first. */
export async function eventReasons(namespace: string): Promise<string[]> {
  const events = await admin.list("Event", { namespace });
  return (
    events
      // Other test files' workers share the cluster, and to them this tenant's namespace is an
      // orphan (its ID is not in their databases): their best-effort orphan Event is not ours.
      .filter((e) => e.source?.component === "occ-worker" && e.reason !== ORPHAN_EVENT_REASON)
      .sort((a, b) => (a.firstTimestamp ?? "").localeCompare(b.firstTimestamp ?? ""))
      .map((e) => e.reason ?? "")
  );
}

/** Waits until the worker recorded at least `count` Events with `reason` on `namespace`. */
export async function eventRecorded(namespace: string, reason: string, count = 1): Promise<void> {
  await eventually(
    `${count}× Event ${reason} on ${namespace}`,
    async () => (await eventReasons(namespace)).filter((r) => r === reason).length >= count,
    60_000,
  );
}

/**
 * Deletes the namespace and creates it again under the same name with the labels and
 * annotations it had (a new UID); returns the namespace as it was (`old`) and as created.
 */
export async function recreateNamespace(
  name: string,
): Promise<{ old: K8sNamespace | undefined; fresh: K8sNamespace }> {
  const old = await readNamespace(name);
  await deleteNamespaceAndWait(name);
  const fresh = await admin.create("Namespace", {
    metadata: {
      name,
      labels: old?.metadata?.labels,
      annotations: old?.metadata?.annotations,
    },
  });
  return { old, fresh };
}

/** Narrows the owned `default-deny` to Ingress only and waits until the worker edits it back. */
export async function narrowDefaultDenyUntilRepaired(namespace: string): Promise<void> {
  const policy = { name: "default-deny", namespace };
  await admin.patch(
    "NetworkPolicy",
    policy,
    { spec: { policyTypes: ["Ingress"] } },
    { type: "merge" },
  );
  await eventually("default-deny edited back", async () => {
    const np = await admin.find("NetworkPolicy", policy);
    return np?.spec?.policyTypes?.includes("Egress") === true;
  });
}

/** Relaxes the namespace's Pod Security to `privileged` and waits until `restricted` is back. */
export async function relaxPodSecurityUntilRepaired(namespace: string): Promise<void> {
  await patchNamespace(namespace, { labels: { [LABELS.podSecurityEnforce]: "privileged" } });
  await eventually(
    "Pod Security restored",
    async () =>
      (await readNamespace(namespace))?.metadata?.labels?.[LABELS.podSecurityEnforce] ===
      "restricted",
  );
}

export async function patchNamespace(name: string, metadata: object): Promise<void> {
  await admin.patch("Namespace", { name }, { metadata }, { type: "merge" });
}

/** Deletes `name` (UID precondition) and waits until the API server no longer has it. */
export async function deleteNamespaceAndWait(name: string): Promise<void> {
  const uid = (await readNamespace(name))?.metadata?.uid ?? "";
  await admin.delete("Namespace", { name }, { uid });
  await eventually(`${name} gone`, async () => (await readNamespace(name)) === undefined, 90_000);
}

/** Deletes one object by name with its UID as precondition. */
export async function deleteObject(
  kind: "NetworkPolicy" | "ResourceQuota" | "LimitRange",
  namespace: string,
  name: string,
): Promise<string> {
  const live = await admin.get(kind, {
    name,
    namespace,
  });
  const uid = live.metadata.uid ?? "";
  await admin.delete(kind, { name, namespace }, { uid });
  return uid;
}
