/**
 * The tenant RoleBindings of the preprovisioned namespace. Seed 001: "Tenant access is
 * unchanged"; seed 000: without the worker's RoleBinding provisioning stays pending, without
 * the API's its Configuration operations answer 503 — no pause, restart or setting. So the real
 * `occ worker` and `occ api` (as the chart-rendered identities: `get` on one namespace) start
 * anyway, warning with the RoleBinding manifest that fixes each gap, and recover by themselves
 * once the operator applies it with kubectl; `occ preprovisioned verify` lists every gap.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import {
  OPENSHELL_TENANT_ROLE,
  TENANT_CLUSTER_ROLES,
} from "../../../src/drivers/kubernetes/rbac-rules.js";
import { renderPreprovisionedYaml } from "../../../src/drivers/preprovisioned-render.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import { eventually } from "../../harness/kube.js";
import { writeRunConfig } from "../../harness/run-files.js";
import { startOcc } from "../../harness/occ.js";
import { admin, kubectl, retargetTenantRoleRefs } from "../../harness/preprovisioned.js";
import { occ, profileDocument } from "./fixtures.js";
import { gatewayStackForFile } from "./file-stacks.js";

const s = gatewayStackForFile({ worker: { pollSeconds: 1 } });
let configFile: string;

beforeAll(async () => {
  configFile = await writeRunConfig("pp-rb", {
    ...profileDocument({ worker: { pollSeconds: 1 } }, s.gw.endpoint),
    kubernetes: {
      kubeconfig: s.p.identities.worker.kubeconfig,
      apiKubeconfig: s.p.identities.api.kubeconfig,
    },
  });
});

const WORKER_BINDING = "openclaw-enterprise-tenant-worker";
const API_BINDING = "openclaw-enterprise-tenant-api";

async function removeBinding(name: string): Promise<void> {
  const ref = { name, namespace: s.p.name };
  const live = await admin().get("RoleBinding", ref);
  await admin().delete("RoleBinding", ref, { uid: live.metadata.uid ?? "" });
}

/** What `occ preprovisioned render` prints (its tenant roles retargeted, see fixtures). */
function rendered(): string {
  const yaml = renderPreprovisionedYaml({
    namespaceId: s.p.id,
    config: s.p.config,
    worker: s.p.identities.worker.subject,
    api: s.p.identities.api.subject,
  });
  return retargetTenantRoleRefs(yaml, s.p.identities);
}

/** The operator's fix: `occ preprovisioned render | kubectl apply -f -`. */
function reapply(): void {
  kubectl("operator", ["apply", "-f", "-"], rendered());
}

/** The operator grants one RoleBinding of the rendered output with kubectl. */
function applyOnly(name: string): void {
  const docs = parseAllDocuments(rendered())
    .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } })
    .filter((o) => o.kind === "RoleBinding" && o.metadata?.name === name);
  expect(docs).toHaveLength(1);
  kubectl("operator", ["apply", "-f", "-"], stringify(docs[0]));
}

/** `occ worker` / `occ api` on the bootstrapped PostgreSQL, running once it says so. */
function start(command: "worker" | "api") {
  const args =
    command === "worker"
      ? ["worker", "--metrics-port", "0"]
      : ["api", "--host", "127.0.0.1", "--port", "0"];
  return startOcc(
    [...args, "--config", configFile, "--database-url", s.url],
    command === "worker" ? /worker metrics served/ : /occ api listening on (\S+)/,
    {
      env: {
        OCC_PREPROVISIONED_NAMESPACE: JSON.stringify(s.p.binding),
        OCC_DATABASE_URL: "",
      },
    },
  );
}

const verify = () =>
  occ([
    "preprovisioned",
    "verify",
    "--namespace-id",
    s.p.id,
    "--uid",
    s.p.binding.uid,
    "--config",
    configFile,
  ]);

const holds = (role: string) => `holds ClusterRole ${role} in ${s.p.name}`;

let lastStatus = "";
async function statusOf(): Promise<string> {
  const record = await getNamespace(s.db, s.id);
  lastStatus = `${record?.status ?? "absent"} ${record?.statusCode ?? ""}`.trim();
  return lastStatus;
}

describe("missing tenant RoleBindings", () => {
  it("all three missing: verify lists each with the manifest", async () => {
    await removeBinding(WORKER_BINDING);
    await removeBinding(API_BINDING);
    await removeBinding(OPENSHELL_TENANT_ROLE);
    const failing = verify();
    expect(failing.status, failing.stdout + failing.stderr).toBe(1);
    expect(failing.stdout).toContain("3 failing requirement(s)");
    for (const role of [
      TENANT_CLUSTER_ROLES.worker,
      OPENSHELL_TENANT_ROLE,
      TENANT_CLUSTER_ROLES.api,
    ]) {
      expect(failing.stdout).toContain(holds(role));
    }
    expect(failing.stdout.match(/kind: RoleBinding/g)).toHaveLength(3);
    reapply();
  }, 120_000);

  it("worker and API without their RoleBindings run and warn; the Namespace waits (occ status says so) and the API answers 503, each recovering once granted — no restart", async () => {
    await removeBinding(WORKER_BINDING);
    await removeBinding(API_BINDING);
    const worker = await start("worker");
    const api = await start("api").catch(async (err: unknown) => {
      await worker.stop();
      throw err;
    });
    try {
      const workerLog = () => worker.output.join("\n");
      expect(workerLog()).toContain(
        `The tenant RoleBindings of namespace ${s.p.name} are missing:`,
      );
      expect(workerLog()).toContain(holds(TENANT_CLUSTER_ROLES.worker));
      expect(workerLog()).not.toContain(holds(OPENSHELL_TENANT_ROLE));
      expect(workerLog()).toContain(
        `RoleBinding ${API_BINDING} (the API's tenant role ${TENANT_CLUSTER_ROLES.api}) exists in ${s.p.name}`,
      );
      // The manifest names the worker's own ServiceAccount (from its SelfSubjectReview).
      expect(workerLog()).toContain("kind: RoleBinding");
      expect(workerLog()).toContain(`name: ${s.p.identities.worker.subject.name}`);
      // The warning is logged before "listening" but through the buffered logger (flushed
      // within 100 ms), while the listening line is written at once: wait for the flush.
      await vi.waitFor(
        () => {
          expect(api.output.join("\n")).toContain(
            `The tenant RoleBindings of namespace ${s.p.name} are missing:`,
          );
        },
        { timeout: 5_000 },
      );
      const apiLog = api.output.join("\n");
      expect(apiLog).toContain(holds(TENANT_CLUSTER_ROLES.api));
      expect(apiLog).toContain(`name: ${s.p.identities.api.subject.name}`);

      // The worker: the Namespace pending on the permission, read from the database and shown
      // by `occ status` with the command that grants it.
      await eventually(
        () => `the Namespace pending on the permission; it is ${lastStatus}`,
        async () => (await statusOf()) === "provisioning KUBERNETES_PERMISSION_PENDING",
      );
      expect((await getNamespace(s.db, s.id))?.statusReason).toContain(TENANT_CLUSTER_ROLES.worker);
      const apiUrl = api.match[1] ?? "";
      const status = occ(["status"], { OCC_API_URL: apiUrl, OCC_API_KEY: s.apiKey });
      expect(status.stdout).toContain(
        `${s.id} waits for a RoleBinding (KUBERNETES_PERMISSION_PENDING: `,
      );
      expect(status.stdout).toContain(`grant it: occ preprovisioned render --namespace-id ${s.id}`);

      // Granted with kubectl (the worker's RoleBinding only): ready by itself.
      applyOnly(WORKER_BINDING);
      await eventually(
        () => `the Namespace ready after the grant; it is ${lastStatus}`,
        async () => (await statusOf()) === "ready",
      );
      expect(worker.running()).toBe(true);

      // The API: Configuration create answers 503 in the envelope until its RoleBinding is
      // applied, then succeeds.
      const create = async () => {
        const res = await fetch(`${apiUrl}/namespaces/${s.id}/configurations`, {
          method: "POST",
          headers: { authorization: `Bearer ${s.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ kind: "agent", values: { model: "m" } }),
        });
        return {
          status: res.status,
          body: (await res.json()) as { error?: { code?: string; message?: string } },
        };
      };
      const refused = await create();
      expect([refused.status, refused.body.error?.code]).toEqual([
        503,
        "KUBERNETES_PERMISSION_MISSING",
      ]);
      // `occ status` lists the API's missing RoleBinding too (the Namespace itself is ready).
      const apiWaits = occ(["status"], { OCC_API_URL: apiUrl, OCC_API_KEY: s.apiKey });
      expect(apiWaits.stdout).toContain(
        `${s.id} waits for a RoleBinding (KUBERNETES_PERMISSION_MISSING: `,
      );
      expect(apiWaits.stdout).toContain(
        `grant it: occ preprovisioned render --namespace-id ${s.id}`,
      );
      applyOnly(API_BINDING);
      let created: Awaited<ReturnType<typeof create>> = { status: 0, body: {} };
      await eventually(
        () => `Configuration create after the grant: ${JSON.stringify(created)}`,
        async () => {
          created = await create();
          return created.status === 201;
        },
        30_000,
      );
      expect(api.running()).toBe(true);
      expect(worker.running()).toBe(true);
      const granted = occ(["status"], { OCC_API_URL: apiUrl, OCC_API_KEY: s.apiKey });
      expect(granted.stdout).toContain("api: ready");
      expect(granted.stdout).not.toContain("waits for a RoleBinding");
    } finally {
      await api.stop();
      await worker.stop();
    }
    const fixed = verify();
    expect(fixed.status, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain("passes every check");
  }, 240_000);
});
