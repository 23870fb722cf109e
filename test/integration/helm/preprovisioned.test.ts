import { describe, expect, it } from "vitest";
import { currentManagedName, h } from "../../../src/domain/placement/naming.js";
import { TENANT_CLUSTER_ROLES } from "../../../src/drivers/kubernetes/rbac-rules.js";
import { CI_VALUES, hookObjects, renderChart, type RenderedObject } from "../../harness/helm.js";
import { uniqueName } from "../../harness/kube.js";
import { CHART_NAMESPACE_ROLES, preprovisionedChartClusterRoles } from "../../harness/rbac.js";
import { rawRequest } from "./api-server.js";
import { boundRoleNames, deploymentOf, envOf, rulesOf } from "./rendered.js";

/** preprovisioned.md §6: what the chart changes in the preprovisioned profile. */
const UID = "0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60";

function renderPreprovisioned(namespaceId: string, uid = UID, isUpgrade = false) {
  return renderChart({
    valuesFiles: [CI_VALUES.preprovisioned],
    values: { preprovisionedNamespace: { namespaceId, uid } },
    isUpgrade,
  });
}

const jobs = (objects: readonly RenderedObject[]) => objects.filter((o) => o.kind === "Job");

describe("preprovisioned profile: no initialization Job and no hook object", () => {
  for (const isUpgrade of [false, true]) {
    it(`renders none on ${isUpgrade ? "upgrade (--is-upgrade)" : "install"}`, async () => {
      const objects = await renderPreprovisioned("ns_example", UID, isUpgrade);
      expect(objects.length).toBeGreaterThan(10);
      expect(jobs(objects)).toEqual([]);
      expect(hookObjects(objects)).toEqual([]);
      expect(JSON.stringify(objects)).not.toContain("helm.sh/hook");
    });
  }

  it("(the normal profile, for contrast, renders the Job as a hook on install and upgrade)", async () => {
    for (const isUpgrade of [false, true]) {
      const objects = await renderChart({ valuesFiles: [CI_VALUES.default], isUpgrade });
      expect(jobs(objects)).toHaveLength(1);
      expect(jobs(objects)[0]?.metadata.annotations?.["helm.sh/hook"]).toBe(
        "pre-install,pre-upgrade",
      );
    }
  });
});

describe("preprovisioned profile: namespace access is `get` on exactly oce-<hash15>", () => {
  const ids = [
    "ns_example",
    "ns_00000000-0000-4000-8000-000000000001",
    "ns_A",
    `ns_${"x_-9".repeat(15)}`,
  ];
  for (const id of ids) {
    it(`for ${id}`, async () => {
      const expected = currentManagedName(id);
      expect(expected).toBe(`oce-${h(id, 15)}`);
      const objects = await renderPreprovisioned(id);
      for (const role of Object.values(CHART_NAMESPACE_ROLES)) {
        expect(rulesOf(objects, role)).toEqual([
          { apiGroups: [""], resources: ["namespaces"], resourceNames: [expected], verbs: ["get"] },
        ]);
      }
      // No rendered role grants any other namespace verb, or any verb on another namespace.
      const namespaceRules = objects
        .filter((o) => o.kind === "ClusterRole" || o.kind === "Role")
        .flatMap((o) => (o as RenderedObject & { rules: { resources: string[] }[] }).rules)
        .filter((r) => r.resources.includes("namespaces"));
      expect(namespaceRules).toHaveLength(2);
    });
  }

  it("matches the placement.md test vectors", async () => {
    const objects = await renderPreprovisioned("ns_example");
    expect(rulesOf(objects, CHART_NAMESPACE_ROLES.worker)[0]?.resourceNames).toEqual([
      "oce-52be956b5de4b1b",
    ]);
    const other = await renderPreprovisioned("ns_00000000-0000-4000-8000-000000000001");
    expect(rulesOf(other, CHART_NAMESPACE_ROLES.api)[0]?.resourceNames).toEqual([
      "oce-89d99db2f971e50",
    ]);
  });
});

describe("preprovisioned profile: OCC_PREPROVISIONED_NAMESPACE on the API and the worker", () => {
  for (const [id, uid] of [
    ["ns_example", UID],
    ["ns_Tenant-42_b", "00000000-0000-0000-0000-000000000000"],
  ] as const) {
    it(`parses to exactly {namespaceId: ${id}, uid: ${uid}}`, async () => {
      const objects = await renderPreprovisioned(id, uid);
      for (const component of ["api", "worker"] as const) {
        const raw = envOf(deploymentOf(objects, component), "OCC_PREPROVISIONED_NAMESPACE");
        if (raw === undefined) throw new Error(`no OCC_PREPROVISIONED_NAMESPACE on ${component}`);
        expect(JSON.parse(raw)).toStrictEqual({ namespaceId: id, uid });
      }
    });
  }

  it("is absent in the normal profile", async () => {
    const objects = await renderChart({ valuesFiles: [CI_VALUES.default] });
    for (const component of ["api", "worker"] as const) {
      expect(envOf(deploymentOf(objects, component), "OCC_PREPROVISIONED_NAMESPACE")).toBe(
        undefined,
      );
    }
  });
});

describe("preprovisioned profile: tenant roles rendered and unbound", () => {
  it("renders both tenant ClusterRoles and binds only the namespace roles", async () => {
    const objects = await renderPreprovisioned("ns_example");
    const roles = objects.filter((o) => o.kind === "ClusterRole").map((o) => o.metadata.name);
    expect(roles).toEqual(expect.arrayContaining(Object.values(TENANT_CLUSTER_ROLES)));
    expect(boundRoleNames(objects)).toEqual(Object.values(CHART_NAMESPACE_ROLES).sort());
    expect(objects.filter((o) => o.kind === "RoleBinding")).toEqual([]);
  });
});

describe("preprovisioned profile: least privilege on the real RBAC authorizer", () => {
  it("the rendered roles allow get on the bound namespace and nothing else on namespaces", async () => {
    const id = `ns_${uniqueName("pp")}`;
    const bound = currentManagedName(id);
    const suffix = uniqueName("r");
    const names = {
      worker: `${CHART_NAMESPACE_ROLES.worker}-${suffix}`,
      api: `${CHART_NAMESPACE_ROLES.api}-${suffix}`,
    };
    const roles = await preprovisionedChartClusterRoles({ namespaceId: id, uid: UID }, names);
    const sa = { namespace: uniqueName("occ"), worker: "occ-worker", api: "occ-api" };
    for (const [role, who] of [
      [roles[0], sa.worker],
      [roles[1], sa.api],
    ] as const) {
      const created = await rawRequest(
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        role,
      );
      expect(created.status).toBe(201);
      const binding = await rawRequest(
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name: role.metadata.name },
          roleRef: {
            apiGroup: "rbac.authorization.k8s.io",
            kind: "ClusterRole",
            name: role.metadata.name,
          },
          subjects: [{ kind: "ServiceAccount", name: who, namespace: sa.namespace }],
        },
      );
      expect(binding.status).toBe(201);
    }
    const allowed = async (who: string, verb: string, name?: string): Promise<boolean> => {
      const res = await rawRequest("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: `system:serviceaccount:${sa.namespace}:${who}`,
          groups: ["system:serviceaccounts", `system:serviceaccounts:${sa.namespace}`],
          resourceAttributes: { verb, resource: "namespaces", ...(name ? { name } : {}) },
        },
      });
      expect(res.status).toBe(201);
      return (res.body as { status: { allowed: boolean } }).status.allowed;
    };
    for (const who of [sa.worker, sa.api]) {
      expect(await allowed(who, "get", bound)).toBe(true);
      expect(await allowed(who, "get", currentManagedName(`${id}x`))).toBe(false);
      expect(await allowed(who, "get", "kube-system")).toBe(false);
      expect(await allowed(who, "list")).toBe(false);
      expect(await allowed(who, "watch")).toBe(false);
      expect(await allowed(who, "create")).toBe(false);
      for (const verb of ["patch", "update", "delete"]) {
        expect(await allowed(who, verb, bound)).toBe(false);
      }
    }
  });
});
