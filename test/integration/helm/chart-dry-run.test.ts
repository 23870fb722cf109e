import { beforeAll, describe, expect, it } from "vitest";
import { kubeAs, uniqueName } from "../../harness/kube.js";
import {
  CHART_DIR,
  CI_VALUES,
  KUBE_VERSION,
  hookObjects,
  renderChart,
  runHelm,
  type RenderedObject,
} from "../../harness/helm.js";
import { dryRun, installChartCrds } from "./api-server.js";

/**
 * deploy.md "How it is tested": `helm lint`, both profiles rendered by the real helm, and every
 * rendered object accepted by the real API server (server-side dry run, strict field
 * validation), with the Gateway API and Envoy Gateway CRDs installed from their Go modules.
 */
let releaseNamespace: string;

beforeAll(async () => {
  const crds = await installChartCrds();
  expect(crds).toEqual(
    expect.arrayContaining([
      "gateways.gateway.networking.k8s.io",
      "envoyproxies.gateway.envoyproxy.io",
    ]),
  );
  releaseNamespace = uniqueName("helm-release");
  await kubeAs("admin").core.createNamespace({ body: { metadata: { name: releaseNamespace } } });
});

async function expectAllAccepted(objects: readonly RenderedObject[]): Promise<void> {
  const refused: string[] = [];
  for (const obj of objects) {
    const res = await dryRun(obj, releaseNamespace);
    if (res.status !== 200 && res.status !== 201) {
      refused.push(`${obj.kind} ${obj.metadata.name}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  expect(refused).toEqual([]);
}

const kinds = (objects: readonly RenderedObject[]) => objects.map((o) => o.kind).sort();

describe("helm lint", () => {
  for (const [profile, file] of Object.entries(CI_VALUES)) {
    it(`passes with ci/${profile}-values.yaml`, async () => {
      const run = await runHelm([
        "lint",
        CHART_DIR,
        "--strict",
        "--values",
        file,
        "--kube-version",
        KUBE_VERSION,
      ]);
      expect(run.stderr + run.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
      expect(run.code).toBe(0);
    });
  }

  it("passes with the chart's own defaults", async () => {
    const run = await runHelm(["lint", CHART_DIR, "--strict", "--kube-version", KUBE_VERSION]);
    expect(run.code).toBe(0);
  });
});

describe("the rendered objects are accepted by the API server (server-side dry run)", () => {
  it("normal profile (ci/default-values.yaml): every object, hooks included", async () => {
    const objects = await renderChart({
      valuesFiles: [CI_VALUES.default],
      namespace: releaseNamespace,
    });
    expect(kinds(objects)).toEqual([
      "ClusterRole",
      "ClusterRole",
      "ClusterRole",
      "ClusterRole",
      "ClusterRole",
      "ClusterRole",
      "ClusterRoleBinding",
      "ClusterRoleBinding",
      "ClusterRoleBinding",
      "ConfigMap",
      "ConfigMap",
      "Deployment",
      "Deployment",
      "EnvoyProxy",
      "FlowSchema",
      "Gateway",
      "Job",
      "NetworkPolicy",
      "NetworkPolicy",
      "NetworkPolicy",
      "NetworkPolicy",
      "PodDisruptionBudget",
      "PodDisruptionBudget",
      "PriorityLevelConfiguration",
      "Service",
      "ServiceAccount",
      "ServiceAccount",
      "ServiceAccount",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
      "ValidatingAdmissionPolicyBinding",
      "ValidatingAdmissionPolicyBinding",
    ]);
    expect(kinds(hookObjects(objects))).toEqual([
      "ConfigMap",
      "Job",
      "NetworkPolicy",
      "ServiceAccount",
    ]);
    await expectAllAccepted(objects);
  });

  it("normal profile with the chart's defaults (no gateway routing, no OpenShell)", async () => {
    const objects = await renderChart({ namespace: releaseNamespace });
    expect(objects.some((o) => o.kind === "Gateway" || o.kind === "EnvoyProxy")).toBe(false);
    await expectAllAccepted(objects);
  });

  it("preprovisioned profile (ci/preprovisioned-values.yaml), install and upgrade", async () => {
    for (const isUpgrade of [false, true]) {
      const objects = await renderChart({
        valuesFiles: [CI_VALUES.preprovisioned],
        namespace: releaseNamespace,
        isUpgrade,
      });
      expect(kinds(objects)).toContain("Gateway");
      expect(kinds(objects)).not.toContain("Job");
      await expectAllAccepted(objects);
    }
  });

  it("the dry run really validates: an object with an unknown field is refused", async () => {
    const [deployment] = (
      await renderChart({ valuesFiles: [CI_VALUES.default], namespace: releaseNamespace })
    ).filter((o) => o.kind === "Deployment");
    if (deployment === undefined) throw new Error("no Deployment rendered");
    const res = await dryRun({ ...deployment, spec: { notAField: true } }, releaseNamespace);
    expect(res.status).toBe(400);
  });
});
