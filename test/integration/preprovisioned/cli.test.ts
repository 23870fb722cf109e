import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { currentManagedName } from "../../../src/domain/index.js";
import {
  OPENSHELL_TENANT_ROLE,
  TENANT_CLUSTER_ROLES,
} from "../../../src/drivers/kubernetes/rbac-rules.js";
import { writeRunConfig } from "../../harness/run-files.js";
import {
  admin,
  grantOperator,
  kubectl,
  preprovisionedIdentities,
  renderedTenantRoleRefs,
  retargetTenantRoleRefs,
  type PreprovisionedIdentities,
} from "../../harness/preprovisioned.js";
import { newBoundId, occ, profileDocument, renderWithCli, valuesWithCli } from "./fixtures.js";

const id = newBoundId();
const name = currentManagedName(id);
let configFile: string;
let identities: PreprovisionedIdentities;

beforeAll(async () => {
  await grantOperator();
  identities = await preprovisionedIdentities(id);
  configFile = await writeRunConfig("pp-config", profileDocument());
});

describe("occ preprovisioned", () => {
  let uid = "";
  const verify = () =>
    occ([
      "preprovisioned",
      "verify",
      "--namespace-id",
      id,
      "--uid",
      uid,
      "--config",
      configFile,
      "--kubeconfig",
      identities.worker.kubeconfig,
    ]);

  it("render → kubectl apply by the operator; values reads the UID; verify passes", () => {
    const rendered = renderWithCli(id, configFile, identities);
    expect(rendered.status, rendered.stderr).toBe(0);
    // The CLI binds the chart's tenant roles by their fixed names — right for a cluster with
    // the chart installed (one release per cluster). In this shared test cluster those names
    // hold the NORMAL profile's rules (the OpenShell one with writes, `escalate` and `bind`),
    // so the test applies the CLI's output with each RoleBinding's roleRef.name pointed at this
    // case's copy of the PREPROVISIONED chart's tenant role — nothing else is changed, and the
    // names are checked first. (A CLI flag to rename roles would be product surface for tests.)
    expect(renderedTenantRoleRefs(rendered.stdout)).toEqual([
      TENANT_CLUSTER_ROLES.worker,
      TENANT_CLUSTER_ROLES.api,
      OPENSHELL_TENANT_ROLE,
    ]);
    kubectl("operator", ["apply", "-f", "-"], retargetTenantRoleRefs(rendered.stdout, identities));

    const values = valuesWithCli(id, configFile);
    expect(values.status, values.stderr).toBe(0);
    const block = parse(values.stdout) as {
      preprovisionedNamespace: { namespaceId: string; uid: string };
    };
    expect(block.preprovisionedNamespace.namespaceId).toBe(id);
    uid = block.preprovisionedNamespace.uid;
    expect(uid).toMatch(/^[0-9a-f-]{36}$/);

    const ok = verify();
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain("passes every check");
  });

  it("three problems are all listed with their fixes, exit non-zero; fixed → exit 0", async () => {
    await admin().patch(
      "Namespace",
      { name },
      {
        metadata: {
          labels: { "pod-security.kubernetes.io/warn": "baseline" },
          annotations: { "openclaw.dev/namespace-lifecycle": null },
        },
      },
      { type: "merge" },
    );
    const policy = await admin().create("NetworkPolicy", {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "allow-everything", namespace: name },
      spec: { podSelector: {}, ingress: [{}] },
    });
    const failing = verify();
    expect(failing.status).toBe(1);
    expect(failing.stdout).toContain("3 failing requirement(s)");
    expect(failing.stdout).toContain("label pod-security.kubernetes.io/warn=restricted");
    expect(failing.stdout).toContain("annotation openclaw.dev/namespace-lifecycle=preprovisioned");
    expect(failing.stdout).toContain("NetworkPolicy allow-everything");
    expect(failing.stdout.match(/fix: /g)).toHaveLength(3);

    await admin().patch(
      "Namespace",
      { name },
      {
        metadata: {
          labels: { "pod-security.kubernetes.io/warn": "restricted" },
          annotations: { "openclaw.dev/namespace-lifecycle": "preprovisioned" },
        },
      },
      { type: "merge" },
    );
    await admin().delete(
      "NetworkPolicy",
      { name: "allow-everything", namespace: name },
      { uid: policy.metadata.uid ?? "" },
    );
    const fixed = verify();
    expect(fixed.status, fixed.stdout).toBe(0);
  });

  it("render refuses a bad Namespace ID, naming the pattern", () => {
    const bad = occ([
      "preprovisioned",
      "render",
      "--namespace-id",
      "ns_bad.id",
      "--config",
      configFile,
    ]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("^ns_[a-zA-Z0-9_-]{1,60}$");
  });
});
