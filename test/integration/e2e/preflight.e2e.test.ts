import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { ANNOTATIONS, LABELS, LIFECYCLE } from "../../../src/domain/index.js";
import { runOcc } from "../../harness/occ.js";
import { admin, prepareExternal } from "../compute/fixtures.js";

function preflight(name: string) {
  return runOcc(
    ["namespaces", "preflight", name, "--kubeconfig", inject("env").kubeconfigs.admin],
    { env: { OCC_CONFIG_PATH: "" } },
  );
}

describe("occ namespaces preflight (read-only, the worker's checks, every failure listed)", () => {
  it("lists all three problems and exits 1; exits 0 once the operator fixed them", async () => {
    const ns = await prepareExternal({
      omitAnnotations: [ANNOTATIONS.lifecycle],
      labels: { [LABELS.podSecurityEnforce]: "baseline" },
    });
    const name = ns.metadata?.name ?? "";
    const policy = await admin.create("NetworkPolicy", {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "allow-all", namespace: name },
      spec: { podSelector: {}, ingress: [{}], policyTypes: ["Ingress"] },
    });
    const before = (await admin.get("Namespace", { name })).metadata.resourceVersion;

    const failing = preflight(name);
    expect(failing.status, failing.stderr).toBe(1);
    const lines = failing.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`${name}: 3 requirement(s) not met:`);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`✗ \\[lifecycle ${ANNOTATIONS.lifecycle}\\] .*"external"`)),
      expect.stringMatching(new RegExp(`✗ \\[pod-security ${LABELS.podSecurityEnforce}\\] `)),
      expect.stringMatching(/✗ \[network-policies\] .*1 NetworkPolicy object\(s\) not owned/),
    ]);
    // Read-only: the namespace was not touched.
    expect((await admin.get("Namespace", { name })).metadata.resourceVersion).toBe(before);

    await admin.patch(
      "Namespace",
      { name },
      {
        metadata: {
          annotations: { [ANNOTATIONS.lifecycle]: LIFECYCLE.external },
          labels: { [LABELS.podSecurityEnforce]: "restricted" },
        },
      },
      { type: "merge" },
    );
    await admin.delete(
      "NetworkPolicy",
      { name: "allow-all", namespace: name },
      { uid: policy.metadata.uid ?? "" },
    );
    const passing = preflight(name);
    expect(passing.stdout).toBe(`ok: ${name} can be selected as existingNamespace\n`);
    expect(passing.status).toBe(0);
  });

  it("a namespace that does not exist fails with the fix", () => {
    const res = preflight("no-such-namespace-xyz");
    expect(res.status).toBe(1);
    expect(res.stdout).toMatch(/✗ \[missing\] .*the operator must create and prepare it/);
  });
});
