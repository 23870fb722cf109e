import { describe, expect, it } from "vitest";
import { preflightExternal } from "../../../src/domain/placement/external-preflight.js";
import { ANNOTATIONS, LABELS, type HasMetadata } from "../../../src/domain/index.js";
import { OTHER, TENANT, namespace, preparedExternal } from "./fixtures.js";

const WORKER_GRANT = {
  who: "worker",
  subject: { kind: "ServiceAccount", namespace: "openclaw-system", name: "occ-worker" },
  clusterRole: "openclaw-enterprise-tenant-worker",
  bindingName: "openclaw-enterprise-tenant-worker",
} as const;
const API_GRANT = {
  who: "API",
  subject: { kind: "User", name: "occ-api" },
  clusterRole: "openclaw-enterprise-tenant-api",
  bindingName: "openclaw-enterprise-tenant-api",
} as const;
const ctx = {
  tenantId: TENANT,
  routing: null,
  controllerNamespace: "openclaw-system",
  grants: [],
  labels: { required: {}, setting: "openshell.gateway.operatorNamespaceLabels" },
};
const granted = [
  {
    roleRef: { kind: "ClusterRole", name: WORKER_GRANT.clusterRole },
    subjects: [{ kind: "ServiceAccount", namespace: "openclaw-system", name: "occ-worker" }],
  },
  {
    roleRef: { kind: "ClusterRole", name: API_GRANT.clusterRole },
    subjects: [{ kind: "User", name: "occ-api" }],
  },
];
const foreignPolicy: HasMetadata = { metadata: { name: "allow-all", labels: {} } };
const checks = (v: readonly { check: string }[]) => v.map((x) => x.check);

describe("preflightExternal", () => {
  it.each([
    ["a prepared namespace", preparedExternal(), [], []],
    ["absent", null, [], ["missing"]],
    [
      "three problems at once",
      preparedExternal({
        annotations: { [ANNOTATIONS.lifecycle]: "managed" },
        labels: { [LABELS.podSecurityEnforce]: "baseline" },
      }),
      [foreignPolicy],
      ["lifecycle", "pod-security", "network-policies"],
    ],
    [
      "another tenant's marker",
      preparedExternal({ labels: { [LABELS.namespace]: OTHER } }),
      [],
      ["foreign-marker"],
    ],
    [
      "terminating",
      preparedExternal({ deletionTimestamp: "2026-11-29T00:00:00Z" }),
      [],
      ["terminating"],
    ],
    [
      "not an external lifecycle at all",
      namespace(),
      [],
      ["lifecycle", "pod-security", "pod-security", "pod-security"],
    ],
  ] as const)("%s → %j", (_, ns, policies, expected) => {
    const found = preflightExternal(
      { name: "customer-support-prod", namespace: ns, policies, bindings: [], claimants: [] },
      ctx,
    );
    expect(checks(found)).toEqual(expected);
    for (const f of found) expect(f.message).not.toContain(OTHER);
  });

  it.each(["kube-system", "default", "openclaw-system", "oce-0123456789abcde", "Not_A_Label"])(
    "refuses to preflight %s as a selection at all",
    (name) => {
      const found = preflightExternal(
        { name, namespace: preparedExternal({ name }), policies: [], bindings: [], claimants: [] },
        ctx,
      );
      expect(checks(found)).toEqual(["explicit-selection"]);
      expect(found[0]?.message).toMatch(/existingNamespace/);
    },
  );

  it("lists every missing RoleBinding, a second claimant and each missing operator label, with fixes", () => {
    const name = "customer-support-prod";
    const full = {
      ...ctx,
      grants: [WORKER_GRANT, API_GRANT],
      labels: { ...ctx.labels, required: { "openshell.io/workspace": "true", team: "ai" } },
    };
    const found = preflightExternal(
      {
        name,
        namespace: preparedExternal({ labels: { team: "ai" } }),
        policies: [],
        // The worker's binding names another ServiceAccount namespace: it does not count.
        bindings: [
          {
            roleRef: { kind: "ClusterRole", name: WORKER_GRANT.clusterRole },
            subjects: [{ kind: "ServiceAccount", namespace: "elsewhere", name: "occ-worker" }],
          },
        ],
        claimants: [namespace({ name: "other-claimant" })],
      },
      full,
    );
    expect(checks(found)).toEqual([
      "exclusive-claim",
      "operator-label",
      "role-binding",
      "role-binding",
    ]);
    expect(found[1]?.message).toContain(
      `kubectl label namespace ${name} --overwrite openshell.io/workspace=true`,
    );
    expect(found[2]?.message).toContain(
      "worker (openclaw-system:occ-worker) has no RoleBinding to ClusterRole openclaw-enterprise-tenant-worker",
    );
    expect(found[3]?.message).toContain("API (user:occ-api)");
    for (const f of found) expect(f.message).not.toContain("other-claimant");

    const ok = preflightExternal(
      {
        name,
        namespace: preparedExternal({ labels: { team: "ai", "openshell.io/workspace": "true" } }),
        policies: [],
        bindings: granted,
        claimants: [preparedExternal({ name })],
      },
      full,
    );
    expect(ok).toEqual([]);
  });
});
