import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import type { NamespaceView } from "../../../src/contract/namespaces.js";
import { currentManagedName } from "../../../src/domain/index.js";
import type { KubeObjectLike } from "../../../src/drivers/kubernetes/client/index.js";
import { runOcc } from "../../harness/occ.js";
import { admin, readNamespace } from "../compute/fixtures.js";
import { controlPlaneForFile, type ControlPlane } from "./control-plane.js";
import { tenantsOf } from "./tenants.js";

let plane: ControlPlane;

/** Runs the real `occ` client command; returns its exit code and both streams. */
function cli(args: readonly string[], env: Record<string, string | undefined> = {}) {
  return runOcc(args, {
    env: { OCC_API_URL: plane.apiUrl, OCC_API_KEY: plane.apiKey, ...env },
    timeoutMs: 120_000,
  });
}

controlPlaneForFile({}, (started) => {
  plane = started;
});

describe("occ namespaces (the operator CLI against the API and worker processes)", () => {
  it(
    "create → wait shows the pending reason → grants applied → ready → delete --wait",
    { timeout: 300_000 },
    async () => {
      const created = cli(["namespaces", "create", "cli-managed", "-o", "json"]);
      expect(created.status, created.stderr).toBe(0);
      const view = JSON.parse(created.stdout) as NamespaceView;
      expect(view.status).toBe("provisioning");
      const k8sName = currentManagedName(view.id);

      // Without the worker RoleBinding the wait shows why and gives up at the timeout. The
      // worker's first pass records that reason; on a loaded machine it can take longer than the
      // wait's 4 s, so the wait starts once the API shows it.
      await tenantsOf(plane).until(
        view.id,
        "pending",
        (v) => v.statusReason?.code === "KUBERNETES_PERMISSION_PENDING",
      );
      const stuck = cli(["namespaces", "wait", view.id, "--timeout", "4s"]);
      expect(stuck.status).toBe(1);
      expect(stuck.stderr).toMatch(
        new RegExp(`${view.id}: provisioning — KUBERNETES_PERMISSION_PENDING: .*`),
      );
      expect(stuck.stderr).toContain(
        `occ: timed out after 4 s waiting for ${view.id} to become ready`,
      );
      // …and prints the exact command that grants the permissions it waits for.
      expect(stuck.stderr).toContain(
        `grant it: occ namespaces grants ${view.id} | kubectl apply -f -`,
      );
      const createWait = cli([
        "namespaces",
        "create",
        "cli-managed-wait",
        "--wait",
        // Long enough for the worker's first pass (its reason) under load; it still ends on the
        // timeout, since nothing grants the permissions.
        "--timeout",
        "10s",
      ]);
      expect(createWait.status).toBe(1);
      expect(createWait.stderr).toMatch(
        /(ns_\S+): provisioning — KUBERNETES_PERMISSION_PENDING: .*\n {2}grant it: occ namespaces grants \1 \| kubectl apply -f -/,
      );

      const grants = cli([
        "namespaces",
        "grants",
        view.id,
        "--worker",
        "user:occ-worker",
        "--api",
        "user:occ-api",
      ]);
      expect(grants.status, grants.stderr).toBe(0);
      const docs = parseAllDocuments(grants.stdout).map((d) => d.toJS() as KubeObjectLike);
      expect(docs.map((d) => [d.kind, d.metadata?.namespace])).toEqual([
        ["RoleBinding", k8sName],
        ["RoleBinding", k8sName],
      ]);
      for (const doc of docs) await admin.create("RoleBinding", doc);

      const ready = cli(["namespaces", "wait", view.id, "--timeout", "60s", "-o", "yaml"]);
      expect(ready.status, ready.stderr).toBe(0);
      const settled = parse(ready.stdout) as NamespaceView;
      expect(settled.status).toBe("ready");
      expect(settled.placement.kubernetesNamespace).toBe(k8sName);
      expect(settled.placement.uid).toBe((await readNamespace(k8sName))?.metadata?.uid);

      const listed = cli(["namespaces", "list"]);
      expect(listed.status, listed.stderr).toBe(0);
      const [header, ...rows] = listed.stdout.trimEnd().split("\n");
      expect(header).toMatch(/^ID\s+NAME\s+STATUS\s+MODE\s+KUBERNETES NAMESPACE\s+REASON$/);
      expect(rows.find((r) => r.startsWith(view.id))).toMatch(
        new RegExp(`^${view.id}\\s+cli-managed\\s+ready\\s+managed\\s+${k8sName}$`),
      );

      const deleted = cli(["namespaces", "delete", view.id, "--wait", "--timeout", "60s"]);
      expect(deleted.status, deleted.stderr).toBe(0);
      expect(deleted.stderr).toContain(`${view.id}: deleted`);
      const gone = cli(["namespaces", "get", view.id]);
      expect(gone.status).toBe(1);
      expect(gone.stderr).toContain(`occ: Namespace ${view.id} not found`);
    },
  );

  it("an API refusal exits non-zero with the stable code and the message", () => {
    const first = cli(["namespaces", "create", "cli-dup", "-o", "json"]);
    expect(first.status, first.stderr).toBe(0);
    const again = cli(["namespaces", "create", "cli-dup"]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^occ: [A-Z_]+: .+/);
  });

  it("occ bootstrap, run again, names the default Namespace on stderr and keeps stdout for the key", () => {
    const res = runOcc(["bootstrap", ...plane.common]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toBe(
      "already bootstrapped: the administrator's API key was issued earlier\n",
    );
    const id =
      /default Namespace: (ns_\S+) \(existing\); to bind a preprovisioned namespace to it: occ preprovisioned render --namespace-id \1/.exec(
        res.stderr,
      )?.[1];
    expect(id).toBeDefined();
    const got = cli(["namespaces", "get", id ?? "", "-o", "json"]);
    expect(got.status, got.stderr).toBe(0);
    expect((JSON.parse(got.stdout) as NamespaceView).name).toBe("default");
  });

  it("names the missing setting and the fix when no server is configured", () => {
    // No stored `occ login` either: a configuration folder that does not exist.
    const res = cli(["namespaces", "list"], {
      OCC_API_URL: undefined,
      XDG_CONFIG_HOME: "/nonexistent/occ-cli-test",
    });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain(
      "occ: no API server: set OCC_API_URL, pass --server, or occ login",
    );
  });
});
