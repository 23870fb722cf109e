import { describe, expect, it } from "vitest";
import {
  API_NAMESPACE_RULES,
  OPENSHELL_TENANT_READ_RULES,
  OPENSHELL_TENANT_ROLE,
  OPENSHELL_TENANT_RULES,
  TENANT_API_RULES,
  TENANT_CLUSTER_ROLES,
  TENANT_WORKER_RULES,
  WORKER_NAMESPACE_RULES,
  WORKER_TENANT_BINDING_ROLE,
  WORKER_TENANT_BINDING_RULES,
  openshellTenantRules,
} from "../../../src/drivers/kubernetes/rbac-rules.js";
import {
  NAMESPACE_CLUSTER_ROLES,
  chartClusterRbac,
  openshellTenantClusterRole,
  preprovisionedClusterRbac,
} from "../../../src/drivers/kubernetes/rbac-objects.js";
import { currentManagedName } from "../../../src/domain/placement/naming.js";
import { CI_VALUES, renderChart } from "../../harness/helm.js";
import {
  CHART_NAMESPACE_ROLES,
  chartTenantClusterRoles,
  normalChartClusterRoles,
  preprovisionedChartClusterRoles,
} from "../../harness/rbac.js";
import { boundRoleNames, rulesOf } from "./rendered.js";

/**
 * The chart's cluster RBAC equals the rules the product states in
 * src/drivers/kubernetes/rbac-rules.ts (which `occ dev up` also grants through rbac-objects.ts):
 * the same names, the same rules, the tenant roles unbound, no wildcard.
 */
/** The ClusterRoles every profile renders: the worker's and the API's, namespace and tenant. */
const NAMESPACE_AND_TENANT_ROLES = [
  NAMESPACE_CLUSTER_ROLES.worker,
  NAMESPACE_CLUSTER_ROLES.api,
  TENANT_CLUSTER_ROLES.worker,
  TENANT_CLUSTER_ROLES.api,
];

const clusterRoleNames = (objects: readonly { kind: string; metadata: { name: string } }[]) =>
  objects.filter((o) => o.kind === "ClusterRole").map((o) => o.metadata.name);

describe("chart cluster RBAC equals src/drivers/kubernetes/rbac-rules.ts", () => {
  for (const [profile, valuesFiles, openshell] of [
    ["chart defaults, no OpenShell", [], false],
    ["ci/default-values.yaml, with OpenShell", [CI_VALUES.default], true],
  ] as const) {
    it(`normal profile (${profile}): names and rules`, async () => {
      const objects = await renderChart({ valuesFiles });
      expect(clusterRoleNames(objects).sort()).toEqual(
        [
          ...NAMESPACE_AND_TENANT_ROLES,
          WORKER_TENANT_BINDING_ROLE,
          ...(openshell ? [OPENSHELL_TENANT_ROLE] : []),
        ].sort(),
      );
      expect(rulesOf(objects, WORKER_TENANT_BINDING_ROLE)).toEqual(WORKER_TENANT_BINDING_RULES);
      if (openshell)
        expect(rulesOf(objects, OPENSHELL_TENANT_ROLE)).toEqual(openshellTenantRules("normal"));
      expect(CHART_NAMESPACE_ROLES).toEqual(NAMESPACE_CLUSTER_ROLES);
      expect(rulesOf(objects, NAMESPACE_CLUSTER_ROLES.worker)).toEqual(WORKER_NAMESPACE_RULES);
      expect(rulesOf(objects, NAMESPACE_CLUSTER_ROLES.api)).toEqual(API_NAMESPACE_RULES);
      expect(rulesOf(objects, TENANT_CLUSTER_ROLES.worker)).toEqual(TENANT_WORKER_RULES);
      expect(rulesOf(objects, TENANT_CLUSTER_ROLES.api)).toEqual(TENANT_API_RULES);
    });
  }

  it("without the admission policies (acknowledged), the worker gets no RoleBinding rights", async () => {
    const objects = await renderChart({
      valuesFiles: [CI_VALUES.default],
      values: { admissionPolicies: { enabled: false, acknowledgeDisabled: true } },
    });
    expect(clusterRoleNames(objects)).not.toContain(WORKER_TENANT_BINDING_ROLE);
    expect(boundRoleNames(objects)).toEqual(
      [NAMESPACE_CLUSTER_ROLES.api, NAMESPACE_CLUSTER_ROLES.worker].sort(),
    );
  });

  it("preprovisioned profile (ci/preprovisioned-values.yaml): names and rules; OpenShell tenant role read-only", async () => {
    const objects = await renderChart({ valuesFiles: [CI_VALUES.preprovisioned] });
    expect(clusterRoleNames(objects).sort()).toEqual(
      [...NAMESPACE_AND_TENANT_ROLES, OPENSHELL_TENANT_ROLE].sort(),
    );
    expect(rulesOf(objects, OPENSHELL_TENANT_ROLE)).toEqual(openshellTenantRules("preprovisioned"));
    expect(rulesOf(objects, TENANT_CLUSTER_ROLES.worker)).toEqual(TENANT_WORKER_RULES);
    expect(rulesOf(objects, TENANT_CLUSTER_ROLES.api)).toEqual(TENANT_API_RULES);
  });

  it("the two OpenShell rule sets: the preprovisioned one is `get` only, on the kinds the normal one writes", () => {
    expect(openshellTenantRules("normal")).toBe(OPENSHELL_TENANT_RULES);
    expect(openshellTenantRules("preprovisioned")).toBe(OPENSHELL_TENANT_READ_RULES);
    expect(new Set(OPENSHELL_TENANT_READ_RULES.flatMap((r) => r.verbs))).toEqual(new Set(["get"]));
    const kinds = (rules: typeof OPENSHELL_TENANT_RULES, verb: string) =>
      rules
        .filter((r) => r.verbs.includes(verb))
        .flatMap((r) => r.resources)
        .sort();
    expect(kinds(OPENSHELL_TENANT_READ_RULES, "get")).toEqual(kinds(OPENSHELL_TENANT_RULES, "get"));
  });

  it("binds only the namespace roles and the worker's tenant-binding role, each to its own ServiceAccount; tenant roles unbound", async () => {
    const objects = await renderChart({
      valuesFiles: [CI_VALUES.default],
      namespace: "occ-system",
    });
    expect(boundRoleNames(objects)).toEqual(
      [
        NAMESPACE_CLUSTER_ROLES.api,
        NAMESPACE_CLUSTER_ROLES.worker,
        WORKER_TENANT_BINDING_ROLE,
      ].sort(),
    );
    const subjects = Object.fromEntries(
      objects
        .filter((o) => o.kind === "ClusterRoleBinding")
        .map((o) => [
          (o as unknown as { roleRef: { name: string } }).roleRef.name,
          (o as unknown as { subjects: unknown[] }).subjects,
        ]),
    );
    expect(subjects).toEqual({
      [NAMESPACE_CLUSTER_ROLES.worker]: [
        { kind: "ServiceAccount", name: "occ-worker", namespace: "occ-system" },
      ],
      [NAMESPACE_CLUSTER_ROLES.api]: [
        { kind: "ServiceAccount", name: "occ-api", namespace: "occ-system" },
      ],
      [WORKER_TENANT_BINDING_ROLE]: [
        { kind: "ServiceAccount", name: "occ-worker", namespace: "occ-system" },
      ],
    });
  });

  it("no rule of any rendered Role or ClusterRole uses a wildcard, in either profile", async () => {
    for (const valuesFiles of [[CI_VALUES.default], [CI_VALUES.preprovisioned]]) {
      const objects = await renderChart({ valuesFiles });
      const text = JSON.stringify(
        objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role"),
      );
      expect(text).toContain('"verbs"');
      expect(text).not.toContain('"*"');
    }
  });

  it("the harness hands out the chart's tenant roles (what tests bind per namespace)", async () => {
    const roles = await chartTenantClusterRoles();
    expect(roles.map((r) => r.metadata.name).sort()).toEqual(
      [TENANT_CLUSTER_ROLES.api, OPENSHELL_TENANT_ROLE, TENANT_CLUSTER_ROLES.worker].sort(),
    );
    expect(roles.find((r) => r.metadata.name === TENANT_CLUSTER_ROLES.worker)?.rules).toEqual(
      TENANT_WORKER_RULES,
    );
    expect(roles.find((r) => r.metadata.name === OPENSHELL_TENANT_ROLE)?.rules).toEqual(
      OPENSHELL_TENANT_RULES,
    );
  });

  it("…and the preprovisioned rendering's tenant roles: the same names, OpenShell read-only", async () => {
    const roles = await chartTenantClusterRoles("preprovisioned");
    expect(roles.map((r) => r.metadata.name).sort()).toEqual(
      [TENANT_CLUSTER_ROLES.api, OPENSHELL_TENANT_ROLE, TENANT_CLUSTER_ROLES.worker].sort(),
    );
    expect(roles.find((r) => r.metadata.name === OPENSHELL_TENANT_ROLE)?.rules).toEqual(
      OPENSHELL_TENANT_READ_RULES,
    );
    expect(roles.find((r) => r.metadata.name === TENANT_CLUSTER_ROLES.worker)?.rules).toEqual(
      TENANT_WORKER_RULES,
    );
  });

  it("the roles `occ dev up` grants (rbac-objects.ts) are the chart's, name for name", async () => {
    const subject = { kind: "User", name: "x" } as const;
    const fromSrc = [...chartClusterRbac(subject, subject), openshellTenantClusterRole("normal")]
      .filter((o) => o.kind === "ClusterRole")
      .map((o) => ({ name: o.metadata.name, rules: (o as unknown as { rules: unknown }).rules }));
    const fromChart = (await normalChartClusterRoles()).map((r) => ({
      name: r.metadata.name,
      rules: r.rules,
    }));
    const byName = (a: { name: string | undefined }, b: { name: string | undefined }) =>
      String(a.name).localeCompare(String(b.name));
    expect(fromChart.sort(byName)).toEqual(fromSrc.sort(byName));
  });

  it("the preprovisioned roles of rbac-objects.ts are the chart's", async () => {
    const id = "ns_example";
    const names = { worker: "w", api: "a" };
    const fromSrc = preprovisionedClusterRbac(currentManagedName(id), names).map((o) => ({
      name: o.metadata.name,
      rules: (o as unknown as { rules: unknown }).rules,
    }));
    const fromChart = (await preprovisionedChartClusterRoles({ namespaceId: id }, names)).map(
      (r) => ({ name: r.metadata.name, rules: r.rules }),
    );
    expect(fromChart).toEqual(fromSrc);
  });

  it("the preprovisioned OpenShell tenant role of rbac-objects.ts is the chart's", async () => {
    const role = openshellTenantClusterRole("preprovisioned") as unknown as {
      metadata: { name: string };
      rules: unknown;
    };
    const fromChart = (await chartTenantClusterRoles("preprovisioned")).find(
      (r) => r.metadata.name === OPENSHELL_TENANT_ROLE,
    );
    expect({ name: fromChart?.metadata.name, rules: fromChart?.rules }).toEqual({
      name: role.metadata.name,
      rules: role.rules,
    });
  });
});
