/**
 * The worker process's watches (lifecycle.md §1–§4), end to end: `occ api` and `occ worker` as
 * processes on the shared cluster, with the full resync an hour away — so whatever is repaired
 * or reported here was noticed through a watch, not a periodic pass. Each case reads the result
 * back from the API server (the objects and the Events the worker recorded) and from the
 * database, and checks that a change queues exactly its tenant's pass.
 */
import { describe, expect, it } from "vitest";
import { ANNOTATIONS, LABELS } from "../../../src/domain/index.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { runOccAsync, type OccResult } from "../../harness/occ.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { admin, prepareExternal, readNamespace } from "../compute/fixtures.js";
import { controlPlaneForFile, type ControlPlane } from "./control-plane.js";
import { callApi } from "../../harness/api.js";
import {
  deleteObject,
  eventReasons,
  eventRecorded,
  narrowDefaultDenyUntilRepaired,
  patchNamespace,
  recreateNamespace,
  relaxPodSecurityUntilRepaired,
  tenantsOf,
  type NamespaceView,
} from "./tenants.js";
import { sleep } from "../../harness/time.js";
import { lastRequested, quiet } from "./work-at-rest.js";

let plane: ControlPlane;
let t: ReturnType<typeof tenantsOf>;

controlPlaneForFile(
  { workerConfig: { resyncSeconds: 3600, convergenceDeadlineSeconds: 10, concurrency: 4 } },
  (started) => {
    plane = started;
    t = tenantsOf(plane);
  },
);

async function metrics(): Promise<string> {
  return (await fetch(plane.workerMetricsUrl)).text();
}

/** `occ namespaces …` as the bootstrap administrator, run asynchronously (it may wait). */
function cli(args: readonly string[]): Promise<OccResult> {
  return runOccAsync(args, { env: { OCC_API_URL: plane.apiUrl, OCC_API_KEY: plane.apiKey } });
}

describe("drift OCC owns is repaired through the watch; the tenant stays ready", () => {
  it("owned NetworkPolicy deleted and edited, quota deleted, Pod Security relaxed: all restored, only that tenant queued", async () => {
    const [a, b] = [await t.readyManaged("watch-a"), await t.readyManaged("watch-b")];
    const [, bBefore] = await quiet(plane.db, [a.id, b.id]);
    const warningsBefore = (await eventReasons(a.namespace)).filter((r) => r !== "READY");

    const policy = { name: "default-deny", namespace: a.namespace };
    const oldUid = await deleteObject("NetworkPolicy", a.namespace, "default-deny");
    await eventually("default-deny restored", async () => {
      const np = await admin.find("NetworkPolicy", policy);
      return np !== undefined && np.metadata.uid !== oldUid;
    });
    await narrowDefaultDenyUntilRepaired(a.namespace);
    await deleteObject("ResourceQuota", a.namespace, "openclaw-quota");
    await eventually(
      "openclaw-quota restored",
      async () =>
        (await admin.find("ResourceQuota", { name: "openclaw-quota", namespace: a.namespace })) !==
        undefined,
    );
    await relaxPodSecurityUntilRepaired(a.namespace);

    expect(await t.get(a.id)).toMatchObject({ status: "ready", statusReason: null });
    expect(await t.row(a.id)).toMatchObject({ status: "ready", status_code: null });
    // The neighbour's pass was never queued by a's changes, and nothing was reported on a.
    expect(await lastRequested(plane.db, b.id)).toBe(bBefore);
    expect((await eventReasons(a.namespace)).filter((r) => r !== "READY")).toEqual(warningsBefore);
    const text = await metrics();
    for (const kind of ["NetworkPolicy", "ResourceQuota", "Namespace"]) {
      expect(text).toMatch(new RegExp(`occ_drift_repairs_total\\{kind="${kind}"\\} [1-9]`));
    }
    expect(text).toMatch(/occ_watch_requested_passes_total [1-9]/);
  });
});

describe("drift the operator owns is reported through the watch and recovers under the same ID", () => {
  it("external: foreign NetworkPolicy, tenant label removed, Pod Security relaxed → degraded, each fixed → ready", async () => {
    const { id, namespace } = await t.readyExternal("watch-external");
    const reported = async (what: string, code: string) => {
      const n = await t.until(id, `degraded (${what})`, (v) => v.status === "degraded");
      expect(n.statusReason?.code).toBe(code);
      expect(await t.row(id)).toMatchObject({ status: "degraded", status_code: code });
    };
    const recovered = async (what: string, readyEvents: number) => {
      const n = await t.until(id, `ready again (${what})`, (v) => v.status === "ready");
      expect(n).toMatchObject({ id, statusReason: null });
      expect(await t.row(id)).toMatchObject({ status: "ready", status_code: null });
      await eventRecorded(namespace, "READY", readyEvents);
    };
    const readyBefore = (await eventReasons(namespace)).filter((r) => r === "READY").length;

    await admin.create("NetworkPolicy", {
      metadata: { name: "allow-all", namespace },
      spec: { podSelector: {}, ingress: [{}], policyTypes: ["Ingress"] },
    });
    await reported("foreign policy", "KUBERNETES_OWNERSHIP_CONFLICT");
    await eventRecorded(namespace, "KUBERNETES_OWNERSHIP_CONFLICT", 1);
    // Nothing of the operator's is changed: their policy stays until they remove it.
    expect(await admin.find("NetworkPolicy", { name: "allow-all", namespace })).toBeDefined();
    await deleteObject("NetworkPolicy", namespace, "allow-all");
    await recovered("foreign policy removed", readyBefore + 1);

    // The tenant label is what the namespace watch selects on: its removal is seen as the
    // namespace leaving the watch, and its return as the namespace coming back.
    await patchNamespace(namespace, { labels: { [LABELS.namespace]: null } });
    await reported("tenant label removed", "KUBERNETES_OWNERSHIP_CONFLICT");
    await eventRecorded(namespace, "KUBERNETES_OWNERSHIP_CONFLICT", 2);
    await sleep(3_000);
    // Not bound again behind the operator's back.
    expect((await readNamespace(namespace))?.metadata?.labels?.[LABELS.namespace]).toBeUndefined();
    await patchNamespace(namespace, { labels: { [LABELS.namespace]: id } });
    await recovered("tenant label restored", readyBefore + 2);

    await patchNamespace(namespace, { labels: { [LABELS.podSecurityEnforce]: "baseline" } });
    await reported("Pod Security relaxed", "KUBERNETES_OWNERSHIP_CONFLICT");
    await eventRecorded(namespace, "KUBERNETES_OWNERSHIP_CONFLICT", 3);
    expect((await readNamespace(namespace))?.metadata?.labels?.[LABELS.podSecurityEnforce]).toBe(
      "baseline",
    );
    await patchNamespace(namespace, { labels: { [LABELS.podSecurityEnforce]: "restricted" } });
    await recovered("Pod Security restored", readyBefore + 3);
  });

  it("external deleted out of band → degraded KUBERNETES_NAMESPACE_MISSING, never recreated", async () => {
    const { id, namespace } = await t.readyExternal("watch-vanished-external");
    const n = await t.deletedOutOfBand({ id, namespace });
    expect(n).toMatchObject({ status: "degraded", placement: { observedUid: null } });
    await sleep(4_000);
    expect(await readNamespace(namespace)).toBeUndefined();
    expect(await t.row(id)).toMatchObject({
      status: "degraded",
      status_code: "KUBERNETES_NAMESPACE_MISSING",
      observed_kubernetes_uid: null,
    });
  });

  it("managed deleted out of band → degraded, not recreated; `occ namespaces retry <id> --wait` recreates it → ready under the same ID", async () => {
    const { id, namespace } = await t.readyManaged("watch-vanished-managed");
    const before = await t.row(id);
    const n = await t.deletedOutOfBand({ id, namespace });
    expect(n.status).toBe("degraded");
    await sleep(4_000);
    expect(await readNamespace(namespace)).toBeUndefined();
    expect(await t.row(id)).toMatchObject({
      status: "degraded",
      status_code: "KUBERNETES_NAMESPACE_MISSING",
    });

    const retry = cli(["namespaces", "retry", id, "--wait", "--timeout", "120s", "-o", "json"]);
    // While it waits, the operator grants the worker's RoleBinding in the recreated namespace.
    await eventually("recreated", async () => (await readNamespace(namespace)) !== undefined);
    await bindTenantRole(namespace, "occ-worker");
    const done = await retry;
    expect(done.status, done.stderr).toBe(0);
    expect(done.stderr).toContain(`${id}: retry accepted`);
    const shown = JSON.parse(done.stdout) as NamespaceView;
    const recreated = await readNamespace(namespace);
    expect(shown).toMatchObject({ id, status: "ready" });
    expect(shown.placement.uid).toBe(recreated?.metadata?.uid);
    expect(shown.placement.uid).not.toBe(before?.kubernetes_uid);
    expect(await t.row(id)).toMatchObject({
      status: "ready",
      kubernetes_uid: recreated?.metadata?.uid,
    });
    await eventRecorded(namespace, "READY");
    const audit = await plane.db.query(
      "SELECT 1 FROM audit_events WHERE action = 'namespaces.retry' AND resource_id = $1",
      [id],
    );
    expect(audit.rows).toHaveLength(1);
  });

  it("managed recreated under the same name while ready → degraded KUBERNETES_NAMESPACE_REPLACED, nothing adopted", async () => {
    const { id, namespace } = await t.readyManaged("watch-replaced-ready");
    const { old, fresh } = await recreateNamespace(namespace);
    const n = await t.until(
      id,
      "replaced",
      (v) => v.statusReason?.code === "KUBERNETES_NAMESPACE_REPLACED",
    );
    expect(n).toMatchObject({
      status: "degraded",
      placement: { uid: old?.metadata?.uid, observedUid: fresh.metadata?.uid },
    });
    expect(await t.row(id)).toMatchObject({
      status: "degraded",
      status_code: "KUBERNETES_NAMESPACE_REPLACED",
      kubernetes_uid: old?.metadata?.uid,
    });
    // No Event: the worker holds no RoleBinding in a namespace it did not create, and Events
    // are best effort (the status above is the report). Nothing of the new namespace was adopted: OCC wrote no quota or policy into it.
    expect(await admin.find("ResourceQuota", { name: "openclaw-quota", namespace })).toBe(
      undefined,
    );
  });
});

describe("a bound tenant that loses its RoleBinding", () => {
  it("managed: the worker's RoleBinding removed → degraded KUBERNETES_PERMISSION_PENDING; granted again → ready under the same ID", async () => {
    const { id, namespace } = await t.readyManaged("watch-unbound");
    const binding = { name: "openclaw-enterprise-tenant-worker", namespace };
    const live = await admin.get("RoleBinding", binding);
    await admin.delete("RoleBinding", binding, { uid: live.metadata.uid ?? "" });
    // An owned object deleted too: nothing is written while the grant is gone, and it is
    // restored once the operator grants the role again.
    await deleteObject("NetworkPolicy", namespace, "default-deny");
    const n = await t.until(id, "degraded", (v) => v.status === "degraded");
    expect(n.statusReason?.code).toBe("KUBERNETES_PERMISSION_PENDING");
    expect(await t.row(id)).toMatchObject({
      status: "degraded",
      status_code: "KUBERNETES_PERMISSION_PENDING",
    });
    await bindTenantRole(namespace, "occ-worker");
    await t.until(id, "ready again", (v) => v.status === "ready");
    expect(await t.row(id)).toMatchObject({ status: "ready", status_code: null });
    expect(await admin.find("NetworkPolicy", { name: "default-deny", namespace })).toBeDefined();
    await eventRecorded(namespace, "READY", 2);
  });
});

describe("pending and refused placements", () => {
  it("managed recreated while pending → failed, the recorded UID kept", async () => {
    const { id, namespace } = await t.createManaged("watch-replaced-pending");
    const pending = await t.until(
      id,
      "pending with its UID",
      (v) => v.statusReason?.code === "KUBERNETES_PERMISSION_PENDING" && v.placement.uid !== null,
    );
    const { old } = await recreateNamespace(namespace);
    expect(pending.placement.uid).toBe(old?.metadata?.uid);
    const failed = await t.until(id, "failed", (v) => v.status === "failed");
    // Seen while gone or once recreated: either way never accepted silently.
    expect(["KUBERNETES_NAMESPACE_REPLACED", "KUBERNETES_NAMESPACE_MISSING"]).toContain(
      failed.statusReason?.code,
    );
    expect(await t.row(id)).toMatchObject({
      status: "failed",
      status_code: failed.statusReason?.code,
      kubernetes_uid: old?.metadata?.uid,
    });
  });

  it("a refused selection fixed by the operator stays failed until `occ namespaces retry --wait`, then ready under the same ID", async () => {
    const ns = await prepareExternal({ omitAnnotations: [ANNOTATIONS.lifecycle] });
    const namespace = ns.metadata?.name ?? "";
    await bindTenantRole(namespace, "occ-worker");
    const res = await callApi(plane, "POST", "/namespaces", {
      name: uniqueName("watch-refused"),
      existingNamespace: namespace,
    });
    const id = (res.body as { data: NamespaceView }).data.id;
    const failed = await t.until(id, "failed", (v) => v.status === "failed");
    expect(failed.statusReason?.code).toBe("KUBERNETES_OWNERSHIP_CONFLICT");
    await eventRecorded(namespace, "KUBERNETES_OWNERSHIP_CONFLICT");
    // The fix is a watched change, yet a refused selection is never adopted by itself.
    await patchNamespace(namespace, { annotations: { [ANNOTATIONS.lifecycle]: "external" } });
    await sleep(5_000);
    expect(await t.row(id)).toMatchObject({ status: "failed" });
    expect((await readNamespace(namespace))?.metadata?.labels?.[LABELS.namespace]).toBeUndefined();

    const done = await cli(["namespaces", "retry", id, "--wait", "--timeout", "90s"]);
    expect(done.status, done.stderr).toBe(0);
    expect(done.stderr).toContain(`${id}: retry accepted`);
    expect(done.stdout).toContain("ready");
    expect(await t.get(id)).toMatchObject({ id, status: "ready", statusReason: null });
    expect((await readNamespace(namespace))?.metadata?.labels?.[LABELS.namespace]).toBe(id);
    expect(await t.row(id)).toMatchObject({ status: "ready", status_code: null });
    await eventRecorded(namespace, "READY");
  });

  it("a RoleBinding granted after the convergence deadline (10 s here) is seen by the watch → ready", async () => {
    const { id, namespace } = await t.createManaged("watch-late");
    await t.until(id, "pending", (v) => v.statusReason?.code === "KUBERNETES_PERMISSION_PENDING");
    await sleep(15_000);
    expect(await t.row(id)).toMatchObject({
      status: "provisioning",
      status_code: "KUBERNETES_PERMISSION_PENDING",
    });
    await bindTenantRole(namespace, "occ-worker");
    await t.until(id, "ready", (v) => v.status === "ready", 60_000);
    expect(await t.row(id)).toMatchObject({ status: "ready", status_code: null });
    await eventRecorded(namespace, "READY");
  });
});
