/**
 * Issue 40 item 2 (quality.md R9): the backup-and-restore drill, with the documented commands
 * of docs/operations.md "Backup and restore" run as written (real `pg_dump` / `pg_restore` of
 * Debian's PostgreSQL, real `occ` processes, the real cluster).
 *
 * Back up; then create tenants (a managed and an external one), delete another through OCC,
 * let a drift repair happen, and have an operator delete a managed namespace by hand, after
 * which an administrator's retry recreates it (a new UID). Stop OCC, restore the backup, start
 * OCC. Read back from the API server and PostgreSQL: no namespace was deleted except the one
 * deleted through OCC; both tenants created after the backup are orphans — reported by
 * `occ namespaces orphans`, the worker's gauge and an Event — and nothing adopted or changed
 * them; the tenant deleted after the backup is `degraded` `KUBERNETES_NAMESPACE_MISSING` and its
 * namespace is not recreated; the recreated namespace is `degraded`
 * `KUBERNETES_NAMESPACE_REPLACED`. Then `occ namespaces import` re-attaches the external orphan
 * (ready, audited) and the managed one is released by hand as documented.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  ORPHAN_EVENT_REASON,
  currentManagedName,
  type K8sNamespace,
} from "../../../src/domain/index.js";
import {
  documentedBlock,
  operatorFolder,
  runBlock,
  shown,
  type CommandResult,
  type DocBlock,
  type RunOptions,
} from "../../harness/doc-blocks.js";
import { eventually } from "../../harness/kube.js";
import { postgresBinDir } from "../../harness/postgres.js";
import { bindTenantRole, grantChartClusterRoles } from "../../harness/rbac.js";
import { admin, prepareExternal, readNamespace } from "../compute/fixtures.js";
import { callApi } from "../../harness/api.js";
import { startControlPlane, type ControlPlane } from "../e2e/control-plane.js";

let dir: string;
let plane: ControlPlane;
let folder: Awaited<ReturnType<typeof operatorFolder>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-restore-"));
  folder = await operatorFolder(dir);
  await grantChartClusterRoles();
  plane = await startControlPlane({ workerConfig: { resyncSeconds: 5, leaseSeconds: 5 } });
}, 180_000);

afterAll(async () => {
  await plane.stop();
  await rm(dir, { recursive: true, force: true });
}, 120_000);

/** The documents' commands with this run's database, API and names filled in. */
function runOpts(fill: Record<string, string> = {}): RunOptions {
  return {
    cwd: folder.work,
    env: {
      PATH: `${postgresBinDir()}:${folder.path}`,
      OCC_API_URL: plane.apiUrl,
      OCC_API_KEY: plane.apiKey,
      OCC_DATABASE_URL: plane.databaseUrl,
      OCC_CONFIG_PATH: plane.common[3] ?? "",
      KUBECONFIG: inject("env").kubeconfigs.admin,
    },
    fill: {
      // The control plane's identities are the cluster users occ-worker and occ-api.
      "--kubeconfig ~/.kube/operator.yaml": `--kubeconfig ${inject("env").kubeconfigs.admin} --worker user:occ-worker --api user:occ-api`,
      ...fill,
    },
    timeoutMs: 180_000,
  };
}

function run(block: DocBlock, fill: Record<string, string> = {}): CommandResult[] {
  const results = runBlock(block, runOpts(fill));
  for (const r of results) expect(r.code, shown(r)).toBe(0);
  return results;
}

interface View {
  id: string;
  status: string;
  statusReason: { code: string } | null;
  placement: { uid: string | null; kubernetesNamespace: string | null };
}

async function view(id: string): Promise<View> {
  return ((await callApi(plane, "GET", `/namespaces/${id}`)).body as { data: View }).data;
}

async function until(id: string, status: string, code?: string): Promise<View> {
  let last: View | undefined;
  await eventually(
    () =>
      `${id} ${status} ${code ?? ""}: ${JSON.stringify(last)}\n${plane.workerOutput.slice(-15).join("\n")}`,
    async () => {
      last = await view(id);
      return last.status === status && (code === undefined || last.statusReason?.code === code);
    },
    90_000,
  );
  return last as View;
}

async function create(name: string, existingNamespace?: string): Promise<string> {
  const body = { name, ...(existingNamespace !== undefined ? { existingNamespace } : {}) };
  const res = await callApi(plane, "POST", "/namespaces", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body as { data: { id: string } }).data.id;
}

/** A ready managed tenant (the worker's tenant role bound in it, as an operator would). */
async function readyManaged(name: string): Promise<{ id: string; ns: string }> {
  const id = await create(name);
  const ns = currentManagedName(id);
  await eventually(`${ns} created`, async () => (await readNamespace(ns)) !== undefined, 90_000);
  await bindTenantRole(ns, "occ-worker");
  await until(id, "ready");
  return { id, ns };
}

async function readyExternal(name: string): Promise<{ id: string; ns: string }> {
  const ns = (await prepareExternal()).metadata?.name ?? "";
  await bindTenantRole(ns, "occ-worker");
  await bindTenantRole(ns, "occ-api");
  const id = await create(name, ns);
  await until(id, "ready");
  return { id, ns };
}

async function deleted(ns: string): Promise<void> {
  await eventually(`${ns} gone`, async () => (await readNamespace(ns)) === undefined, 120_000);
}

/**
 * Name → UID of this drill's namespaces that carry the tenant label. Only its own: other test
 * files place and delete their tenants in the same cluster meanwhile (to this drill's worker
 * those are orphans too — reported, never touched).
 */
async function labelled(names: readonly string[]): Promise<Map<string, string>> {
  const list = await admin.list("Namespace", { labelSelector: LABELS.namespace });
  return new Map(
    list
      .filter((n) => names.includes(n.metadata.name))
      .map((n) => [n.metadata.name, n.metadata.uid ?? ""]),
  );
}

const markers = (n: K8sNamespace | undefined) => ({
  labels: n?.metadata?.labels,
  annotations: n?.metadata?.annotations,
  resourceVersion: n?.metadata?.resourceVersion,
});

/** The orphan gauge by placement (at least this drill's; other files' tenants count too). */
async function orphanGauge(): Promise<Record<string, number>> {
  const text = await (await fetch(plane.workerMetricsUrl)).text();
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^occ_orphan_namespaces\{placement="(\w+)"\} (\d+)$/gm)) {
    counts[m[1] ?? ""] = Number(m[2]);
  }
  return counts;
}

describe("backup and restore (R9): nothing deleted or adopted, orphans reported, vanished tenants degraded", () => {
  it("runs the drill with the documented commands", async () => {
    const kept = await readyManaged("restore-kept");
    const gone = await readyManaged("restore-gone");
    const replaced = await readyManaged("restore-replaced");
    run(documentedBlock("backup-dump"));

    // After the backup: two new tenants, one deleted through OCC, a drift repair, and a managed
    // namespace deleted by hand and recreated by an administrator's retry (a new UID).
    const managedOrphan = await readyManaged("restore-new-managed");
    const externalOrphan = await readyExternal("restore-new-external");
    expect((await callApi(plane, "DELETE", `/namespaces/${gone.id}`)).status).toBe(202);
    await deleted(gone.ns);
    const policies = await admin.list("NetworkPolicy", { namespace: kept.ns });
    const policy = policies[0];
    if (policy === undefined) throw new Error(`no NetworkPolicy in ${kept.ns}`);
    const { name: policyName, uid: policyUid } = policy.metadata;
    await admin.delete(
      "NetworkPolicy",
      { namespace: kept.ns, name: policyName },
      { uid: policyUid ?? "" },
    );
    await eventually("the deleted NetworkPolicy repaired", async () =>
      (await admin.list("NetworkPolicy", { namespace: kept.ns })).some(
        (p) => p.metadata.name === policyName && p.metadata.uid !== policyUid,
      ),
    );
    const oldUid = (await readNamespace(replaced.ns))?.metadata?.uid;
    await admin.delete("Namespace", { name: replaced.ns }, { uid: oldUid ?? "" });
    await until(replaced.id, "degraded", "KUBERNETES_NAMESPACE_MISSING");
    expect((await callApi(plane, "POST", `/namespaces/${replaced.id}/retry`)).status).toBe(202);
    await eventually("recreated", async () => (await readNamespace(replaced.ns)) !== undefined);
    await bindTenantRole(replaced.ns, "occ-worker");
    const recreated = await until(replaced.id, "ready");
    expect(recreated.placement.uid).not.toBe(oldUid);

    // Stop OCC, restore the backup, start OCC.
    const mine = [kept.ns, gone.ns, replaced.ns, managedOrphan.ns, externalOrphan.ns];
    const before = await labelled(mine);
    expect([...before.keys()].sort()).toEqual(
      [kept.ns, replaced.ns, managedOrphan.ns, externalOrphan.ns].sort(),
    );
    const orphanMarkers = {
      managed: markers(await readNamespace(managedOrphan.ns)),
      external: markers(await readNamespace(externalOrphan.ns)),
    };
    await plane.restart(() => {
      run(documentedBlock("backup-restore"));
      return Promise.resolve();
    });
    const known = await plane.db.query<{ id: string }>(
      "SELECT id FROM namespaces WHERE id = ANY($1::text[])",
      [[managedOrphan.id, externalOrphan.id]],
    );
    expect(known.rows).toEqual([]);

    // The tenant deleted after the backup is degraded and its namespace not recreated; the
    // recreated one is degraded, not adopted; the kept one is ready.
    await until(gone.id, "degraded", "KUBERNETES_NAMESPACE_MISSING");
    await until(replaced.id, "degraded", "KUBERNETES_NAMESPACE_REPLACED");
    expect((await view(kept.id)).status).toBe("ready");

    // Every orphan reported: the CLI, the gauge, an Event in each.
    const [listed] = run(documentedBlock("orphans-list"));
    for (const o of [managedOrphan, externalOrphan]) {
      expect(listed?.stdout).toMatch(new RegExp(`${o.ns}\\s.*${o.id}`));
    }
    await eventually("occ_orphan_namespaces", async () => {
      const gauge = await orphanGauge();
      return (gauge.external ?? 0) >= 1 && (gauge.managed ?? 0) >= 1;
    });
    for (const o of [managedOrphan, externalOrphan]) {
      await eventually(`an orphan Event in ${o.ns}`, async () =>
        (await admin.list("Event", { namespace: o.ns })).some(
          (e) => e.reason === ORPHAN_EVENT_REASON,
        ),
      );
    }
    // Several resyncs later: nothing deleted but through OCC, the orphans untouched, the
    // vanished namespace not recreated, nothing bound to the orphans in the database.
    await new Promise((r) => setTimeout(r, 12_000));
    const after = await labelled(mine);
    for (const [name, uid] of before) expect(after.get(name), name).toBe(uid);
    expect(await readNamespace(gone.ns)).toBeUndefined();
    expect(markers(await readNamespace(managedOrphan.ns))).toEqual(orphanMarkers.managed);
    expect(markers(await readNamespace(externalOrphan.ns))).toEqual(orphanMarkers.external);
    const bound = await plane.db.query(
      "SELECT id FROM namespaces WHERE kubernetes_namespace = ANY($1::text[]) OR existing_namespace = ANY($1::text[])",
      [[managedOrphan.ns, externalOrphan.ns]],
    );
    expect(bound.rows).toEqual([]);
    expect((await view(gone.id)).statusReason?.code).toBe("KUBERNETES_NAMESPACE_MISSING");

    // Re-import the external orphan; release the managed one by hand.
    run(documentedBlock("orphans-import"), {
      "customer-support-prod": externalOrphan.ns,
      "ns_…": externalOrphan.id,
      "--name support": "--name restore-imported",
    });
    const imported = await plane.db.query<{ id: string; status: string }>(
      "SELECT id, status FROM namespaces WHERE existing_namespace = $1",
      [externalOrphan.ns],
    );
    expect(imported.rows.map((r) => r.status)).toEqual(["ready"]);
    const newId = imported.rows[0]?.id ?? "";
    const rebound = await readNamespace(externalOrphan.ns);
    expect(rebound?.metadata?.labels?.[LABELS.namespace]).toBe(newId);
    expect(rebound?.metadata?.annotations?.[ANNOTATIONS.namespaceId]).toBe(newId);
    expect(rebound?.metadata?.uid).toBe(before.get(externalOrphan.ns));
    const audit = await plane.db.query<{ details: Record<string, unknown> }>(
      "SELECT details FROM audit_events WHERE action = 'namespaces.import' AND resource_id = $1",
      [newId],
    );
    expect(audit.rows[0]?.details).toMatchObject({
      existingNamespace: externalOrphan.ns,
      staleNamespaceId: externalOrphan.id,
    });
    run(documentedBlock("orphans-release"), { "oce-0123456789abcde": managedOrphan.ns });
    const [empty] = run(documentedBlock("orphans-list"));
    expect(empty?.stdout).not.toContain(externalOrphan.ns);
    expect(empty?.stdout).not.toContain(managedOrphan.ns);
    const released = await readNamespace(managedOrphan.ns);
    await admin.delete(
      "Namespace",
      { name: managedOrphan.ns },
      { uid: released?.metadata?.uid ?? "" },
    );
  }, 900_000);
});
