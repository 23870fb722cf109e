/**
 * The lifecycle after placement (lifecycle.md), through the real `occ api` and `occ worker`
 * processes on the real cluster and PostgreSQL: drift OCC owns is repaired, drift the operator
 * owns is reported as `degraded` and recovers by itself under the same ID, a vanished
 * namespace is never recreated without an administrator's retry, a recreated one is detected,
 * a refused selection stays failed until retried, and pending on a RoleBinding outlives the
 * old convergence deadline. Each case reads the result back from the API server (objects and
 * Events) and from the database. A 2 s resync is what makes the worker look again.
 */
import { describe, expect, it } from "vitest";
import { ANNOTATIONS, LABELS } from "../../../src/domain/index.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { runOccAsync } from "../../harness/occ.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { admin, prepareExternal, readNamespace } from "../compute/fixtures.js";
import { controlPlaneForFile, type ControlPlane } from "./control-plane.js";
import { callApi } from "../../harness/api.js";
import {
  deleteObject,
  eventReasons,
  narrowDefaultDenyUntilRepaired,
  patchNamespace,
  recreateNamespace,
  relaxPodSecurityUntilRepaired,
  tenantsOf,
  type NamespaceView,
} from "./tenants.js";
import { sleep } from "../../harness/time.js";

let plane: ControlPlane;
let get: ReturnType<typeof tenantsOf>["get"];
let until: ReturnType<typeof tenantsOf>["until"];
let row: ReturnType<typeof tenantsOf>["row"];
let createManaged: ReturnType<typeof tenantsOf>["createManaged"];
let readyManaged: ReturnType<typeof tenantsOf>["readyManaged"];
let readyExternal: ReturnType<typeof tenantsOf>["readyExternal"];
let deletedOutOfBand: ReturnType<typeof tenantsOf>["deletedOutOfBand"];

controlPlaneForFile(
  { workerConfig: { resyncSeconds: 2, convergenceDeadlineSeconds: 10, concurrency: 4 } },
  (started) => {
    plane = started;
    ({ get, until, row, createManaged, readyManaged, readyExternal, deletedOutOfBand } =
      tenantsOf(plane));
  },
);

describe("drift OCC owns is repaired, the tenant stays ready", () => {
  it("an owned NetworkPolicy deleted, then edited, and Pod Security relaxed: all restored", async () => {
    const { id, namespace } = await readyManaged("drift-owned");
    await deleteObject("NetworkPolicy", namespace, "default-deny");
    await eventually("default-deny restored", async () => {
      return (await admin.find("NetworkPolicy", { name: "default-deny", namespace })) !== undefined;
    });
    await narrowDefaultDenyUntilRepaired(namespace);
    await relaxPodSecurityUntilRepaired(namespace);
    expect(await get(id)).toMatchObject({ status: "ready", statusReason: null });
    expect(await row(id)).toMatchObject({ status: "ready", status_code: null });
    const metrics = await (await fetch(plane.workerMetricsUrl)).text();
    expect(metrics).toMatch(/occ_drift_repairs_total\{kind="NetworkPolicy"\} [1-9]/);
    expect(metrics).toMatch(/occ_drift_repairs_total\{kind="Namespace"\} [1-9]/);
  });
});

describe("drift the operator owns is reported as degraded and recovers under the same ID", () => {
  it("external: a foreign NetworkPolicy, a removed marker, relaxed Pod Security", async () => {
    const { id, namespace } = await readyExternal("drift-external");
    await admin.create("NetworkPolicy", {
      metadata: { name: "allow-all", namespace },
      spec: { podSelector: {}, ingress: [{}], policyTypes: ["Ingress"] },
    });
    const degraded = await until(id, "degraded (foreign policy)", (n) => n.status === "degraded");
    expect(degraded.statusReason?.code).toBe("KUBERNETES_OWNERSHIP_CONFLICT");
    expect(await row(id)).toMatchObject({ status: "degraded" });
    // Nothing of the operator's is changed: their policy stays.
    expect(await admin.find("NetworkPolicy", { name: "allow-all", namespace })).toBeDefined();
    await deleteObject("NetworkPolicy", namespace, "allow-all");
    await until(id, "ready again", (n) => n.status === "ready");

    await patchNamespace(namespace, { annotations: { [ANNOTATIONS.namespaceId]: null } });
    const unmarked = await until(id, "degraded (marker)", (n) => n.status === "degraded");
    expect(unmarked.statusReason?.message).toContain(ANNOTATIONS.namespaceId);
    // Not bound again behind the operator's back.
    await sleep(4_000);
    expect((await readNamespace(namespace))?.metadata?.annotations?.[ANNOTATIONS.namespaceId]).toBe(
      undefined,
    );
    await patchNamespace(namespace, { annotations: { [ANNOTATIONS.namespaceId]: id } });
    await until(id, "ready again", (n) => n.status === "ready");

    await patchNamespace(namespace, { labels: { [LABELS.podSecurityEnforce]: "baseline" } });
    await until(id, "degraded (Pod Security)", (n) => n.status === "degraded");
    expect((await readNamespace(namespace))?.metadata?.labels?.[LABELS.podSecurityEnforce]).toBe(
      "baseline",
    );
    await patchNamespace(namespace, { labels: { [LABELS.podSecurityEnforce]: "restricted" } });
    const back = await until(id, "ready again", (n) => n.status === "ready");
    expect(back.id).toBe(id);
    expect(await row(id)).toMatchObject({ status: "ready", status_code: null });
    await eventually("Events recorded", async () => {
      const reasons = await eventReasons(namespace);
      return (
        reasons.filter((r) => r === "KUBERNETES_OWNERSHIP_CONFLICT").length >= 3 &&
        reasons.filter((r) => r === "READY").length >= 3
      );
    });
  });

  it("external deleted out of band: degraded KUBERNETES_NAMESPACE_MISSING, never recreated", async () => {
    const { id, namespace } = await readyExternal("vanished-external");
    const n = await deletedOutOfBand({ id, namespace });
    expect(n.status).toBe("degraded");
    expect(n.placement.observedUid).toBeNull();
    await sleep(5_000);
    expect(await readNamespace(namespace)).toBeUndefined();
    expect(await row(id)).toMatchObject({
      status: "degraded",
      status_code: "KUBERNETES_NAMESPACE_MISSING",
      observed_kubernetes_uid: null,
    });
  });

  it("managed deleted out of band: degraded, recreated only after an administrator's retry", async () => {
    const { id, namespace } = await readyManaged("vanished-managed");
    const before = await row(id);
    const n = await deletedOutOfBand({ id, namespace });
    expect(n.status).toBe("degraded");
    await sleep(5_000);
    expect(await readNamespace(namespace)).toBeUndefined();

    const retried = await callApi(plane, "POST", `/namespaces/${id}/retry`);
    expect(retried.status).toBe(202);
    await eventually("recreated", async () => (await readNamespace(namespace)) !== undefined);
    await bindTenantRole(namespace, "occ-worker");
    const ready = await until(id, "ready after retry", (v) => v.status === "ready");
    const recreated = await readNamespace(namespace);
    expect(ready.placement.uid).toBe(recreated?.metadata?.uid);
    expect(ready.placement.uid).not.toBe(before?.kubernetes_uid);
    expect(await row(id)).toMatchObject({
      status: "ready",
      kubernetes_uid: recreated?.metadata?.uid,
    });
    const audit = await plane.db.query(
      "SELECT 1 FROM audit_events WHERE action = 'namespaces.retry' AND resource_id = $1",
      [id],
    );
    expect(audit.rows).toHaveLength(1);
  });

  it("a managed namespace recreated under the same name while ready: degraded, UID changed", async () => {
    const { id, namespace } = await readyManaged("replaced-ready");
    const { old } = await recreateNamespace(namespace);
    const n = await until(
      id,
      "degraded, replaced",
      (v) => v.statusReason?.code === "KUBERNETES_NAMESPACE_REPLACED",
    );
    expect(n.status).toBe("degraded");
    const now = await readNamespace(namespace);
    expect(n.placement).toMatchObject({ uid: old?.metadata?.uid, observedUid: now?.metadata?.uid });
    expect(await row(id)).toMatchObject({ kubernetes_uid: old?.metadata?.uid });
  });
});

describe("an administrator's retry of a recreated external namespace", () => {
  it("rebinds it, and the retry's audit event, the lifecycle event and the CLI show the old and new UID", async () => {
    const { id, namespace } = await readyExternal("recreated-external");
    const { old, fresh } = await recreateNamespace(namespace);
    const oldUid = old?.metadata?.uid ?? "";
    const newUid = fresh.metadata?.uid ?? "";
    await until(
      id,
      "degraded, replaced",
      (v) => v.status === "degraded" && v.placement.observedUid === newUid,
    );
    await bindTenantRole(namespace, "occ-worker");

    const cli = await runOccAsync(["namespaces", "retry", id, "--wait", "--timeout", "90s"], {
      env: { OCC_API_URL: plane.apiUrl, OCC_API_KEY: plane.apiKey },
    });
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stderr).toContain(
      `${id}: namespace UID ${oldUid} (recorded) → ${newUid} (now): the namespace was recreated`,
    );
    expect(cli.stderr).toContain(`${id}: bound to namespace UID ${newUid} (was ${oldUid})`);
    expect(cli.stdout).toContain(newUid);
    expect(await row(id)).toMatchObject({ status: "ready", kubernetes_uid: newUid });

    const events = await plane.db.query<{ action: string; details: Record<string, unknown> }>(
      `SELECT action, details FROM audit_events
       WHERE resource_id = $1 AND action IN ('namespaces.retry', 'namespaces.lifecycle.ensure')
       ORDER BY occurred_at, id`,
      [id],
    );
    const retry = events.rows.filter((e) => e.action === "namespaces.retry");
    expect(retry).toHaveLength(1);
    expect(retry[0]?.details).toMatchObject({
      from: "degraded",
      recordedUid: oldUid,
      observedUid: newUid,
      uidChanged: true,
    });
    const rebound = events.rows.filter((e) => e.details.previousUid !== undefined);
    expect(rebound.map((e) => e.details)).toEqual([
      expect.objectContaining({ to: "ready", previousUid: oldUid, uid: newUid }),
    ]);
  });
});

describe("pending and refused placements", () => {
  it("the UID is recorded from creation, so a recreate while pending is detected", async () => {
    const { id, namespace } = await createManaged("replaced-pending");
    const pending = await until(
      id,
      "pending with its UID",
      (v) => v.statusReason?.code === "KUBERNETES_PERMISSION_PENDING" && v.placement.uid !== null,
    );
    const { old } = await recreateNamespace(namespace);
    expect(pending.placement.uid).toBe(old?.metadata?.uid);
    const failed = await until(id, "failed", (v) => v.status === "failed");
    // Seen while gone or once recreated: either way never accepted silently.
    expect(["KUBERNETES_NAMESPACE_REPLACED", "KUBERNETES_NAMESPACE_MISSING"]).toContain(
      failed.statusReason?.code,
    );
    expect(await row(id)).toMatchObject({ status: "failed", kubernetes_uid: old?.metadata?.uid });
  });

  it("a refused selection fixed by the operator stays failed until retried, then ready under the same ID", async () => {
    const ns = await prepareExternal({ omitAnnotations: [ANNOTATIONS.lifecycle] });
    const namespace = ns.metadata?.name ?? "";
    await bindTenantRole(namespace, "occ-worker");
    const res = await callApi(plane, "POST", "/namespaces", {
      name: uniqueName("refused"),
      existingNamespace: namespace,
    });
    const id = (res.body as { data: NamespaceView }).data.id;
    const failed = await until(id, "failed", (v) => v.status === "failed");
    expect(failed.statusReason?.code).toBe("KUBERNETES_OWNERSHIP_CONFLICT");
    await patchNamespace(namespace, { annotations: { [ANNOTATIONS.lifecycle]: "external" } });
    await sleep(6_000);
    expect(await row(id)).toMatchObject({ status: "failed" });
    expect((await readNamespace(namespace))?.metadata?.labels?.[LABELS.namespace]).toBeUndefined();
    await eventually("failure Event", async () =>
      (await eventReasons(namespace)).includes("KUBERNETES_OWNERSHIP_CONFLICT"),
    );

    expect((await callApi(plane, "POST", `/namespaces/${id}/retry`)).status).toBe(202);
    const ready = await until(id, "ready after retry", (v) => v.status === "ready");
    expect(ready.id).toBe(id);
    expect((await readNamespace(namespace))?.metadata?.labels?.[LABELS.namespace]).toBe(id);
    expect(await row(id)).toMatchObject({ status: "ready", status_code: null });
    await eventually("ready Event", async () => (await eventReasons(namespace)).includes("READY"));
  });

  it("a RoleBinding granted after the convergence deadline still makes it ready", async () => {
    const { id, namespace } = await createManaged("late-binding");
    await until(id, "pending", (v) => v.statusReason?.code === "KUBERNETES_PERMISSION_PENDING");
    // The deadline is 10 s; wait well past it.
    await sleep(15_000);
    expect(await row(id)).toMatchObject({
      status: "provisioning",
      status_code: "KUBERNETES_PERMISSION_PENDING",
    });
    await bindTenantRole(namespace, "occ-worker");
    await until(id, "ready", (v) => v.status === "ready");
    expect(await row(id)).toMatchObject({ status: "ready" });
    await eventually("ready Event", async () => (await eventReasons(namespace)).includes("READY"));
  });
});
