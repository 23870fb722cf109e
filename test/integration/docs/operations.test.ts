import { spawn } from "node:child_process";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { kubeconfigYaml } from "../../../src/devcluster/kubeconfig.js";
import type { K8sNamespace } from "../../../src/domain/index.js";
import { isKubeError } from "../../../src/drivers/kubernetes/client/index.js";
import { createMissing } from "../../../src/drivers/kubernetes/rbac-objects.js";
import { WORKER_TENANT_BINDING_ROLE } from "../../../src/drivers/kubernetes/rbac-rules.js";
import {
  documentedBlock,
  filled,
  operatorFolder,
  runBlock,
  runCommand,
  shown,
  type CommandResult,
  type RunOptions,
} from "../../harness/doc-blocks.js";
import { REPO_ROOT } from "../../harness/helm.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { admin, kubectl } from "../../harness/preprovisioned.js";
import { CHART_NAMESPACE_ROLES, grantChartClusterRoles } from "../../harness/rbac.js";
import { startControlPlane, type ControlPlane } from "../e2e/control-plane.js";
import { installChartCrds } from "../helm/api-server.js";

/**
 * The fenced commands of docs/operations.md and the chart README, run as written through bash
 * on the real cluster, helm and a real `occ api` + `occ worker` (PostgreSQL). The worker runs as
 * the chart's ServiceAccount `openclaw-system/occ-worker` with the chart's cluster roles, so the
 * documented grants (whose subjects default to the chart's ServiceAccounts) are what it needs.
 * Only the documents' placeholders are filled in: the namespace name (unique per run), `ns_…`
 * with the ID the API returned, `<release-ns>`, `<worker-sa>`, `<api-sa>`, and the operator's
 * kubeconfig (the cluster administrator's).
 */

const RELEASE_NS = "openclaw-system";
const RBAC_GROUP = "rbac.authorization.k8s.io";

let dir: string;
let plane: ControlPlane | undefined;
let opts: RunOptions;

async function ensure(kind: "Namespace" | "ServiceAccount", name: string, namespace?: string) {
  try {
    await admin().create(kind, {
      metadata: { name, ...(namespace !== undefined ? { namespace } : {}) },
    });
  } catch (err) {
    if (!(isKubeError(err, "conflict") && err.reason === "AlreadyExists")) throw err;
  }
}

function clusterBinding(role: string, sa: string) {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: "ClusterRoleBinding" as const,
    metadata: { name: `docs-test-${role}-${sa}` },
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: role },
    subjects: [{ kind: "ServiceAccount", name: sa, namespace: RELEASE_NS }],
  };
}

/** The chart's worker ServiceAccount with the chart's cluster roles, and a kubeconfig for it. */
async function chartWorkerIdentity(): Promise<string> {
  // The chart's ClusterRoles (created once per run, checked against the chart's rules).
  await grantChartClusterRoles();
  await ensure("Namespace", RELEASE_NS);
  await ensure("ServiceAccount", "occ-worker", RELEASE_NS);
  await ensure("ServiceAccount", "occ-api", RELEASE_NS);
  await createMissing(admin(), [
    clusterBinding(CHART_NAMESPACE_ROLES.worker, "occ-worker"),
    clusterBinding(WORKER_TENANT_BINDING_ROLE, "occ-worker"),
    clusterBinding(CHART_NAMESPACE_ROLES.api, "occ-api"),
  ]);
  const token = kubectl("admin", [
    "create",
    "token",
    "occ-worker",
    "-n",
    RELEASE_NS,
    "--duration=2h",
  ]).trim();
  const env = inject("env");
  const file = join(dir, "occ-worker.kubeconfig");
  await writeFile(
    file,
    kubeconfigYaml({ server: env.server, caPem: env.caPem, user: "occ-worker", token }),
    { mode: 0o600 },
  );
  return file;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "occ-docs-"));
  const folder = await operatorFolder(dir, { linkDeploy: true });
  const started = await startControlPlane({ kubeconfig: await chartWorkerIdentity() });
  plane = started;
  opts = {
    cwd: folder.work,
    env: {
      PATH: folder.path,
      OCC_API_URL: started.apiUrl,
      OCC_API_KEY: started.apiKey,
      KUBECONFIG: inject("env").kubeconfigs.admin,
      OCC_CONFIG_PATH: "",
      OCC_DATABASE_URL: "",
    },
    fill: {
      "~/.kube/operator.yaml": inject("env").kubeconfigs.admin,
      "<release-ns>": RELEASE_NS,
      "<worker-sa>": "occ-worker",
      "<api-sa>": "occ-api",
    },
  };
});

afterAll(async () => {
  await plane?.stop();
  await rm(dir, { recursive: true, force: true });
}, 300_000);

/** `opts` with the documents' namespace and `ns_…` filled for this case. */
function forNamespace(namespace: string, id = "ns_…"): RunOptions {
  return { ...opts, fill: { ...opts.fill, "customer-support-prod": namespace, "ns_…": id } };
}

function expectAllZero(results: readonly CommandResult[]) {
  for (const r of results) expect(r.code, shown(r)).toBe(0);
}

async function k8sNamespace(name: string): Promise<K8sNamespace> {
  return admin().get("Namespace", { name });
}

interface ApiNamespace {
  id: string;
  status: string;
  statusReason: { code: string } | null;
}

async function apiNamespace(id: string): Promise<ApiNamespace> {
  const api = { url: opts.env?.OCC_API_URL ?? "", key: opts.env?.OCC_API_KEY ?? "" };
  const res = await fetch(`${api.url}/namespaces/${id}`, {
    headers: { authorization: `Bearer ${api.key}` },
  });
  return ((await res.json()) as { data: ApiNamespace }).data;
}

/** A command running in the background (`occ namespaces create … --wait`). */
function background(command: string, o: RunOptions) {
  const child = spawn("bash", ["-o", "pipefail", "-c", command], {
    cwd: o.cwd,
    env: { ...process.env, ...o.env },
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  let done = false;
  const exited = new Promise<number | null>((r) => {
    child.once("exit", (code) => {
      done = true;
      r(code);
    });
  });
  return {
    output: () => output,
    done: () => done,
    exited,
    kill: () => {
      child.kill("SIGTERM");
    },
  };
}

let adopted: { namespace: string; id: string } | undefined;

describe("docs/operations.md: adopt an existing namespace, then grant the RoleBindings", () => {
  it(
    "prepare → preflight → create --wait (prints the grant command) → grants | kubectl apply → wait → ready",
    { timeout: 240_000 },
    async () => {
      const namespace = uniqueName("customer-support");
      const o = forNamespace(namespace);
      expectAllZero(runBlock(documentedBlock("external-prepare"), o));
      const prepared = await k8sNamespace(namespace);
      expect(prepared.metadata?.annotations?.["openclaw.dev/namespace-lifecycle"]).toBe("external");
      expect(prepared.metadata?.labels?.["pod-security.kubernetes.io/enforce"]).toBe("restricted");

      const [preflight, create, ...rest] = documentedBlock("external-preflight-create").commands;
      expect(rest).toEqual([]);
      // Prepared but not yet granted: exactly the two RoleBindings are left, as documented.
      const checked = runCommand(filled(preflight ?? "", o.fill), o);
      expect(checked.code, shown(checked)).toBe(1);
      expect(checked.stdout.trimEnd().split("\n")).toEqual([
        `${namespace}: 2 requirement(s) not met:`,
        expect.stringMatching(
          /✗ \[role-binding openclaw-enterprise-tenant-worker\] the worker \(openclaw-system:occ-worker\) .*kubectl create rolebinding openclaw-enterprise-tenant-worker/,
        ),
        expect.stringMatching(
          /✗ \[role-binding openclaw-enterprise-tenant-api\] the API \(openclaw-system:occ-api\) .*kubectl create rolebinding openclaw-enterprise-tenant-api/,
        ),
      ]);

      // `create --wait` waits for the worker's RoleBinding and prints the command that grants it.
      const waiting = background(filled(create ?? "", o.fill), o);
      let id = "";
      try {
        await eventually(
          "create --wait prints the grant command",
          () => {
            if (waiting.done()) throw new Error("create --wait exited");
            id =
              /grant it: occ namespaces grants (ns_\S+) \| kubectl apply -f -/.exec(
                waiting.output(),
              )?.[1] ?? "";
            return Promise.resolve(id !== "");
          },
          90_000,
        );
      } catch (err) {
        waiting.kill();
        throw new Error(`${String(err)}\n${waiting.output()}`);
      }
      expect(waiting.output()).toContain("KUBERNETES_PERMISSION_PENDING");
      expect((await apiNamespace(id)).status).toBe("provisioning");

      const granted = runBlock(documentedBlock("grants-apply"), forNamespace(namespace, id));
      expectAllZero(granted);
      expect(await waiting.exited, waiting.output()).toBe(0);
      expect((await apiNamespace(id)).status).toBe("ready");
      const bound = await k8sNamespace(namespace);
      expect(bound.metadata?.labels?.["openclaw.dev/namespace"]).toBe(id);
      expect(bound.metadata?.annotations?.["openclaw.dev/namespace-id"]).toBe(id);
      expect(bound.metadata?.uid).toBe(prepared.metadata?.uid);
      adopted = { namespace, id };
    },
  );

  it("grants by hand, and the OpenShell tenant role", { timeout: 180_000 }, async () => {
    const namespace = uniqueName("customer-support");
    const o = forNamespace(namespace);
    expectAllZero(runBlock(documentedBlock("external-prepare"), o));
    const created = runCommand(
      `occ namespaces create support-by-hand --existing-namespace ${namespace} -o json`,
      o,
    );
    expect(created.code, shown(created)).toBe(0);
    const id = (JSON.parse(created.stdout) as { id: string }).id;

    expectAllZero(runBlock(documentedBlock("grants-by-hand"), o));
    const waited = runCommand(`occ namespaces wait ${id} --timeout 2m`, o);
    expect(waited.code, shown(waited)).toBe(0);
    expect((await apiNamespace(id)).status).toBe("ready");

    expectAllZero(runBlock(documentedBlock("grants-openshell"), o));
    const binding = await admin().get("RoleBinding", {
      namespace,
      name: "openclaw-enterprise-tenant-openshell",
    });
    expect(binding.roleRef?.name).toBe("openclaw-enterprise-tenant-openshell");
    expect(binding.subjects).toEqual([
      expect.objectContaining({
        kind: "ServiceAccount",
        name: "occ-worker",
        namespace: RELEASE_NS,
      }),
    ]);
  });

  it("release a deleted tenant's namespace for re-adoption", { timeout: 180_000 }, async () => {
    expect(adopted, "the adoption case ran first").toBeDefined();
    const { namespace, id } = adopted ?? { namespace: "", id: "" };
    const deleted = runCommand(`occ namespaces delete ${id} --wait --timeout 2m`, opts);
    expect(deleted.code, shown(deleted)).toBe(0);
    const kept = await k8sNamespace(namespace);
    expect(kept.metadata?.labels?.["openclaw.dev/namespace"]).toBe(id);

    expectAllZero(runBlock(documentedBlock("release-namespace"), forNamespace(namespace)));
    const released = await k8sNamespace(namespace);
    expect(released.metadata?.labels?.["openclaw.dev/namespace"]).toBeUndefined();
    expect(released.metadata?.annotations?.["openclaw.dev/namespace-id"]).toBeUndefined();
    expect(released.metadata?.uid).toBe(kept.metadata?.uid);
    // Ready for another tenant: the preflight passes again.
    const preflight = documentedBlock("external-preflight-create").commands[0] ?? "";
    const again = runCommand(filled(preflight, forNamespace(namespace).fill), opts);
    expect(again.code, shown(again)).toBe(0);
  });
});

describe("docs/operations.md: the admission policies", () => {
  it("are listed by their label, and refuse the worker's dry run", () => {
    const [list, dryRun, ...rest] = runBlock(documentedBlock("admission-check"), opts);
    expect(rest).toEqual([]);
    expect(list?.code, list && shown(list)).toBe(0);
    for (const name of [
      "openclaw-enterprise-namespaces",
      "openclaw-enterprise-owned-objects",
      "openclaw-enterprise-role-bindings",
    ]) {
      expect(list?.stdout).toContain(
        `validatingadmissionpolicy.admissionregistration.k8s.io/${name}`,
      );
      expect(list?.stdout).toContain(
        `validatingadmissionpolicybinding.admissionregistration.k8s.io/${name}`,
      );
    }
    // The documented refusal: "… is forbidden: ValidatingAdmissionPolicy '<policy>' …".
    expect(dryRun?.code, dryRun && shown(dryRun)).not.toBe(0);
    expect(dryRun?.stderr).toContain(
      "ValidatingAdmissionPolicy 'openclaw-enterprise-namespaces' with binding 'openclaw-enterprise-namespaces' denied request: openclaw-enterprise: OCC creates only namespaces named oce-<15 hex>",
    );
    expect(dryRun?.stderr).toContain("is forbidden");
  });
});

describe("docs/operations.md: occ status", () => {
  it("prints the API's readiness and every worker's last heartbeat, as documented", async () => {
    const block = documentedBlock("occ-status");
    await eventually("the worker's first heartbeat", () => {
      const r = runCommand(block.commands[0] ?? "", opts);
      return Promise.resolve(r.code === 0 && /running/.test(r.stdout));
    });
    const [status] = runBlock(block, opts);
    expect(status?.code, status && shown(status)).toBe(0);
    const lines = (status?.stdout ?? "").trimEnd().split("\n");
    // The documented sample: its first two lines are the API line and the table's header.
    const sample = block.text
      .split("\n")
      .filter((l) => l.startsWith("# "))
      .map((l) => l.slice(2));
    expect(lines[0]).toBe(sample[0]);
    expect(lines[1]?.split(/\s{2,}/)).toEqual(sample[1]?.split(/\s{2,}/));
    expect(lines.slice(2).some((l) => /^\S+\s+running\s+\S+Z \(\d+s ago\)\s+-$/.test(l))).toBe(
      true,
    );
  });
});

describe("docs/operations.md: installing with Helm", () => {
  it("creates the release namespace and the database Secret", async () => {
    // The shared cluster already has openclaw-system: the block runs for a fresh release namespace.
    const release = uniqueName("openclaw-docs");
    const url = "postgres://occ:secret@db.example:5432/occ";
    const o = { ...opts, fill: { ...opts.fill, "openclaw-system": release, "postgres://…": url } };
    expectAllZero(runBlock(documentedBlock("database-secret"), o));
    const secret = await admin().get("Secret", { namespace: release, name: "occ-database" });
    expect(Buffer.from(secret.data?.["url"] ?? "", "base64").toString()).toBe(url);
    kubectl("admin", ["delete", "namespace", release, "--wait=false"]);
  });

  it("checks a values file: helm lint, then helm template | kubectl apply --dry-run=server", async () => {
    await installChartCrds();
    await copyFile(
      join(REPO_ROOT, "deploy/helm/openclaw-enterprise/ci/default-values.yaml"),
      join(opts.cwd, "my-values.yaml"),
    );
    const [lint, dryRun, ...rest] = runBlock(documentedBlock("check-values"), opts);
    expect(rest).toEqual([]);
    expect(lint?.code, lint && shown(lint)).toBe(0);
    expect(lint?.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
    expect(dryRun?.code, dryRun && shown(dryRun)).toBe(0);
    expect(dryRun?.stdout).toContain(
      "deployment.apps/occ-openclaw-enterprise-worker created (server dry run)",
    );
  });
});

describe("the chart README: helm install", () => {
  it("installs the example values (server-side dry run)", { timeout: 180_000 }, async () => {
    await installChartCrds();
    const [install, ...rest] = documentedBlock("chart-install").commands;
    expect(rest).toEqual([]);
    // The shared test cluster already holds the chart's fixed cluster-wide RBAC names (applied
    // by the harness, not by helm), which a real install would refuse to adopt: a server-side
    // dry run that may take them over changes nothing.
    const command = `${(install ?? "").replace(/\s+#.*$/, "")} --dry-run=server --take-ownership`;
    const r = runCommand(command, opts);
    expect(r.code, shown(r)).toBe(0);
    expect(r.stdout).toContain("STATUS: pending-install");
    expect(r.stdout).toContain("name: occ-openclaw-enterprise-api");
    expect(r.stdout).toContain("name: occ-openclaw-enterprise-init");
  });
});
