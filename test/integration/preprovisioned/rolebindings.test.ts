/**
 * The tenant RoleBindings of the preprovisioned namespace: a missing one stops the worker's
 * and the API's startup and fails `occ preprovisioned verify`, each listing the RoleBinding
 * manifest that fixes it — checked as the chart-rendered identities (get on one namespace),
 * through their own SelfSubjectRulesReview, and the API's binding by name from the worker.
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
import { uniqueName } from "../../harness/kube.js";
import { admin, kubectl, retargetTenantRoleRefs } from "../../harness/preprovisioned.js";
import { migratedPglite, occ, prepare, type Prepared, profileDocument } from "./fixtures.js";

let p: Prepared;
let configFile: string;

beforeAll(async () => {
  p = await prepare();
  configFile = join(inject("env").runDir, `${uniqueName("pp-rb")}.yaml`);
  await writeFile(
    configFile,
    JSON.stringify({
      ...profileDocument(),
      kubernetes: {
        kubeconfig: p.identities.worker.kubeconfig,
        apiKubeconfig: p.identities.api.kubeconfig,
      },
    }),
  );
});

async function removeBinding(name: string): Promise<void> {
  const ref = { name, namespace: p.name };
  const live = await admin().get("RoleBinding", ref);
  await admin().delete("RoleBinding", ref, { uid: live.metadata.uid ?? "" });
}

/** The operator's fix: `occ preprovisioned render | kubectl apply -f -` (retargeted roles). */
function reapply(): void {
  const yaml = renderPreprovisionedYaml({
    namespaceId: p.id,
    config: p.config,
    worker: p.identities.worker.subject,
    api: p.identities.api.subject,
  });
  kubectl("operator", ["apply", "-f", "-"], retargetTenantRoleRefs(yaml, p.identities));
}

async function start(command: "worker" | "api") {
  const dir = await migratedPglite();
  const metrics = command === "worker" ? ["--metrics-port", "0"] : [];
  return occ([command, "--config", configFile, "--pglite", dir, ...metrics], {
    OCC_PREPROVISIONED_NAMESPACE: JSON.stringify(p.binding),
  });
}

const verify = () =>
  occ([
    "preprovisioned",
    "verify",
    "--namespace-id",
    p.id,
    "--uid",
    p.binding.uid,
    "--config",
    configFile,
  ]);

const holds = (role: string) => `holds ClusterRole ${role} in ${p.name}`;

describe("missing tenant RoleBindings", () => {
  it("all three missing: worker, API and verify each list theirs with the manifest", async () => {
    await removeBinding("openclaw-enterprise-tenant-worker");
    await removeBinding("openclaw-enterprise-tenant-api");
    await removeBinding(OPENSHELL_TENANT_ROLE);

    const worker = await start("worker");
    expect(worker.status, worker.stderr).toBe(1);
    expect(worker.stderr).toContain(`The tenant RoleBindings of namespace ${p.name} are missing:`);
    expect(worker.stderr).toContain(holds(TENANT_CLUSTER_ROLES.worker));
    expect(worker.stderr).toContain(holds(OPENSHELL_TENANT_ROLE));
    // The manifest names the worker's own ServiceAccount (from its SelfSubjectReview).
    expect(worker.stderr).toContain("kind: RoleBinding");
    expect(worker.stderr).toContain(`name: ${p.identities.worker.subject.name}`);

    const api = await start("api");
    expect(api.status, api.stderr).toBe(1);
    expect(api.stderr).toContain(holds(TENANT_CLUSTER_ROLES.api));
    expect(api.stderr).toContain(`name: ${p.identities.api.subject.name}`);

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
  }, 600_000);

  it("with the OpenShell binding back, the worker names the API's missing RoleBinding too", async () => {
    reapply();
    await removeBinding("openclaw-enterprise-tenant-worker");
    await removeBinding("openclaw-enterprise-tenant-api");
    const worker = await start("worker");
    expect(worker.status, worker.stderr).toBe(1);
    expect(worker.stderr).toContain(holds(TENANT_CLUSTER_ROLES.worker));
    expect(worker.stderr).not.toContain(holds(OPENSHELL_TENANT_ROLE));
    expect(worker.stderr).toContain(
      `RoleBinding openclaw-enterprise-tenant-api (the API's tenant role ${TENANT_CLUSTER_ROLES.api}) exists in ${p.name}`,
    );

    reapply();
    const fixed = verify();
    expect(fixed.status, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain("passes every check");
  }, 600_000);
});
