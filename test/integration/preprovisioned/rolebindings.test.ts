/**
 * The tenant RoleBindings of the preprovisioned namespace. Seed 001: "Tenant access is
 * unchanged"; seed 000: without the worker's RoleBinding provisioning stays pending, without
 * the API's its Configuration operations answer 503 — no pause, restart or setting. So the real
 * `occ worker` and `occ api` (as the chart-rendered identities: `get` on one namespace) start
 * anyway, warning with the RoleBinding manifest that fixes each gap, and recover by themselves
 * once the operator applies it with kubectl; `occ preprovisioned verify` lists every gap.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import {
  OPENSHELL_TENANT_ROLE,
  TENANT_CLUSTER_ROLES,
} from "../../../src/drivers/kubernetes/rbac-rules.js";
import { renderPreprovisionedYaml } from "../../../src/main/preprovisioned-render.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { startOcc } from "../../harness/occ.js";
import { admin, kubectl, retargetTenantRoleRefs } from "../../harness/preprovisioned.js";
import { gatewayStackForFile, occ, profileDocument } from "./fixtures.js";

const s = gatewayStackForFile({ worker: { pollSeconds: 1 } });
let configFile: string;

beforeAll(async () => {
  configFile = join(inject("env").runDir, `${uniqueName("pp-rb")}.yaml`);
  await writeFile(
    configFile,
    JSON.stringify({
      ...profileDocument({ worker: { pollSeconds: 1 } }, s.gw.endpoint),
      kubernetes: {
        kubeconfig: s.p.identities.worker.kubeconfig,
        apiKubeconfig: s.p.identities.api.kubeconfig,
      },
    }),
  );
});

const WORKER_BINDING = "openclaw-enterprise-tenant-worker";
const API_BINDING = "openclaw-enterprise-tenant-api";

async function removeBinding(name: string): Promise<void> {
  const ref = { name, namespace: s.p.name };
  const live = await admin().get("RoleBinding", ref);
  await admin().delete("RoleBinding", ref, { uid: live.metadata.uid ?? "" });
}

/** The operator's fix: `occ preprovisioned render | kubectl apply -f -` (retargeted roles). */
function reapply(): void {
  const yaml = renderPreprovisionedYaml({
    namespaceId: s.p.id,
    config: s.p.config,
    worker: s.p.identities.worker.subject,
    api: s.p.identities.api.subject,
  });
  kubectl("operator", ["apply", "-f", "-"], retargetTenantRoleRefs(yaml, s.p.identities));
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

  it("the worker without its RoleBinding runs, warns, keeps the Namespace pending, and places it once granted — no restart", async () => {
    await removeBinding(WORKER_BINDING);
    await removeBinding(API_BINDING);
    const worker = await start("worker");
    try {
      const log = () => worker.output.join("\n");
      expect(log()).toContain(`The tenant RoleBindings of namespace ${s.p.name} are missing:`);
      expect(log()).toContain(holds(TENANT_CLUSTER_ROLES.worker));
      expect(log()).not.toContain(holds(OPENSHELL_TENANT_ROLE));
      expect(log()).toContain(
        `RoleBinding ${API_BINDING} (the API's tenant role ${TENANT_CLUSTER_ROLES.api}) exists in ${s.p.name}`,
      );
      // The manifest names the worker's own ServiceAccount (from its SelfSubjectReview).
      expect(log()).toContain("kind: RoleBinding");
      expect(log()).toContain(`name: ${s.p.identities.worker.subject.name}`);

      await eventually(
        () => `the Namespace pending on the permission; it is ${lastStatus}`,
        async () => (await statusOf()) === "provisioning KUBERNETES_PERMISSION_PENDING",
      );
      const pending = await getNamespace(s.db, s.id);
      expect(pending?.statusReason).toContain(TENANT_CLUSTER_ROLES.worker);
      expect(worker.running()).toBe(true);

      reapply();
      await eventually(
        () => `the Namespace ready after the grant; it is ${lastStatus}`,
        async () => (await statusOf()) === "ready",
      );
      expect(worker.running()).toBe(true);
    } finally {
      await worker.stop();
    }
  }, 180_000);

  it("the API without its RoleBinding runs, warns, answers Configuration create 503 — then 201 once granted", async () => {
    expect(await statusOf()).toBe("ready");
    await removeBinding(API_BINDING);
    const api = await start("api");
    try {
      const log = api.output.join("\n");
      expect(log).toContain(`The tenant RoleBindings of namespace ${s.p.name} are missing:`);
      expect(log).toContain(holds(TENANT_CLUSTER_ROLES.api));
      expect(log).toContain(`name: ${s.p.identities.api.subject.name}`);

      const create = async () => {
        const res = await fetch(`${api.match[1] ?? ""}/namespaces/${s.id}/configurations`, {
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

      reapply();
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
    } finally {
      await api.stop();
    }
    const fixed = verify();
    expect(fixed.status, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain("passes every check");
  }, 180_000);
});
