import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { loadInstallationConfig } from "../../../src/config/installation-config.js";
import {
  ADMISSION_POLICY_NAMES,
  admissionPolicyObjects,
  openshellPolicyOptions,
} from "../../../src/drivers/kubernetes/admission-policies.js";
import {
  createObjectClient,
  loadKubeConfig,
  type KubeObjectLike,
} from "../../../src/drivers/kubernetes/client/index.js";
import type { RbacSubject } from "../../../src/drivers/kubernetes/rbac-objects.js";
import { chartAdmissionPolicies, HARNESS_IDENTITIES } from "../../harness/admission.js";
import {
  CI_VALUES,
  helmTemplate,
  renderChart,
  type RenderedObject,
  type RenderOptions,
} from "../../harness/helm.js";
import { writeRunConfig } from "../../harness/run-files.js";
import { installationDocument } from "./rendered.js";

/**
 * The chart's admission policies equal admissionPolicyObjects() of
 * src/drivers/kubernetes/admission-policies.ts (what `occ dev up` installs) for the same
 * identities and OpenShell declaration; the test harness installs the chart's rendering; the
 * policies are switched off only with an explicit acknowledgement.
 */
const POLICY_KINDS = ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"] as const;

const byKindAndName = (a: KubeObjectLike, b: KubeObjectLike) =>
  `${a.kind}/${a.metadata?.name}`.localeCompare(`${b.kind}/${b.metadata?.name}`);
/** The rendered policies and bindings (metadata reduced to the name), sorted (helm orders by kind). */
const policies = (objects: readonly RenderedObject[]) =>
  objects
    .filter((o) => POLICY_KINDS.some((k) => k === o.kind))
    .map((o) => ({ ...o, metadata: { name: o.metadata.name } }))
    .sort(byKindAndName);

const chartSubjects = (namespace: string): RbacSubject[] => [
  { kind: "ServiceAccount", name: "occ-worker", namespace },
  { kind: "ServiceAccount", name: "occ-api", namespace },
];

/** The Installation configuration the chart renders with `opts`, loaded as the processes do. */
async function renderedConfig(objects: readonly RenderedObject[]) {
  return loadInstallationConfig(
    await writeRunConfig("chart-config", installationDocument(objects)),
  );
}

const DECLARED_BINDING = {
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "RoleBinding",
  metadata: { name: "openshell-sandbox" },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "openshell-sandbox" },
  subjects: [{ kind: "ServiceAccount", name: "openshell-sandbox" }],
};

describe("the chart's admission policies equal src/drivers/kubernetes/admission-policies.ts", () => {
  const cases: readonly [string, RenderOptions, RbacSubject[]][] = [
    ["chart defaults (no OpenShell)", { namespace: "occ-system" }, chartSubjects("occ-system")],
    [
      "ci/default-values.yaml (OpenShell, a declared RoleBinding) with the harness identities",
      {
        valuesFiles: [CI_VALUES.default],
        values: {
          admissionPolicies: { extraSubjects: HARNESS_IDENTITIES },
          openshell: {
            gateway: {
              operatorWorkspaceResources: [
                {
                  apiVersion: "v1",
                  kind: "ServiceAccount",
                  metadata: { name: "openshell-sandbox" },
                },
                DECLARED_BINDING,
              ],
            },
          },
        },
      },
      [...chartSubjects("openclaw-system"), ...HARNESS_IDENTITIES],
    ],
    [
      "preprovisioned profile (ci/preprovisioned-values.yaml)",
      { valuesFiles: [CI_VALUES.preprovisioned] },
      chartSubjects("openclaw-system"),
    ],
  ];
  for (const [name, opts, subjects] of cases) {
    it(name, async () => {
      const objects = await renderChart(opts);
      const config = await renderedConfig(objects);
      const fromSrc = admissionPolicyObjects({
        subjects,
        ...openshellPolicyOptions(config.openshell),
      });
      expect(policies(objects)).toEqual([...fromSrc].sort(byKindAndName));
      expect(policies(objects).map((o) => `${o.kind} ${o.metadata.name}`)).toEqual(
        ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"].flatMap((k) =>
          Object.values(ADMISSION_POLICY_NAMES).map((n) => `${k} ${n}`),
        ),
      );
    });
  }

  it("the declared RoleBinding and the OpenShell namespace labels reach the policies", async () => {
    const objects = await renderChart(cases[1]?.[1] ?? {});
    const text = JSON.stringify(policies(objects));
    expect(text).toContain(
      '{\\"kind\\":\\"Role\\",\\"name\\":\\"openshell-sandbox\\",\\"role\\":\\"openshell-sandbox\\"}',
    );
    expect(text).toContain('{\\"openshell.example.com/workspace\\":\\"true\\"}');
  });

  it("with the policies the worker binds the tenant roles: the configuration names the chart's ServiceAccounts (normal profile only)", async () => {
    const normal = await renderedConfig(await renderChart({ namespace: "occ-system" }));
    expect(normal.kubernetes.tenantRoleBindings).toEqual({
      worker: { kind: "ServiceAccount", name: "occ-worker", namespace: "occ-system" },
      api: { kind: "ServiceAccount", name: "occ-api", namespace: "occ-system" },
    });
    const pre = await renderedConfig(
      await renderChart({ valuesFiles: [CI_VALUES.preprovisioned] }),
    );
    expect(pre.kubernetes.tenantRoleBindings).toBeNull();
  });

  it("the harness installed exactly the chart's rendering in the test cluster", async () => {
    const admin = createObjectClient(loadKubeConfig(inject("env").kubeconfigs.admin));
    try {
      for (const rendered of await chartAdmissionPolicies()) {
        const kind = POLICY_KINDS.find((k) => k === rendered.kind);
        if (kind === undefined) throw new Error(`the chart renders a ${rendered.kind}`);
        const stored = await admin.get(kind, {
          name: rendered.metadata.name,
        });
        // The API server adds defaults (matchPolicy, selectors); every rendered field is stored.
        expect(stored["spec"]).toMatchObject(rendered["spec"] as object);
      }
    } finally {
      admin.close();
    }
  });
});

describe("switching the admission policies off", () => {
  it("is refused without the acknowledgement, naming the keys", async () => {
    const run = await helmTemplate({ values: { admissionPolicies: { enabled: false } } });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("admissionPolicies.enabled: false");
    expect(run.stderr).toContain("admissionPolicies.acknowledgeDisabled: true");
  });

  it("with the acknowledgement: no policy, no RoleBinding rights, managed Namespaces wait for the operator", async () => {
    const objects = await renderChart({
      values: { admissionPolicies: { enabled: false, acknowledgeDisabled: true } },
    });
    expect(policies(objects)).toEqual([]);
    expect((await renderedConfig(objects)).kubernetes.tenantRoleBindings).toBeNull();
  });

  it("an extra ServiceAccount subject needs its namespace", async () => {
    const run = await helmTemplate({
      values: { admissionPolicies: { extraSubjects: [{ kind: "ServiceAccount", name: "x" }] } },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("admissionPolicies.extraSubjects[0].namespace is required");
  });
});
