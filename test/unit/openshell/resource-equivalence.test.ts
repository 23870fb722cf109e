import { describe, expect, it } from "vitest";
import {
  validateInstallationConfig,
  ConfigurationError,
} from "../../../src/config/installation-config.js";
import { workspaceResourceMatches } from "../../../src/drivers/openshell/resource-equivalence.js";

const role = {
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "Role",
  metadata: { name: "r" },
  rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
};

describe("workspaceResourceMatches", () => {
  it.each([
    ["identical", role, role, true],
    [
      "metadata and status differ",
      role,
      { ...role, metadata: { name: "r", uid: "u", labels: { a: "b" } }, status: {} },
      true,
    ],
    [
      "key order differs",
      role,
      {
        rules: [{ verbs: ["get"], resources: ["pods"], apiGroups: [""] }],
        kind: "Role",
        apiVersion: role.apiVersion,
      },
      true,
    ],
    [
      "a rule changed",
      role,
      { ...role, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }] },
      false,
    ],
    [
      "a field added live",
      { apiVersion: "v1", kind: "ServiceAccount" },
      { apiVersion: "v1", kind: "ServiceAccount", automountServiceAccountToken: false },
      false,
    ],
    [
      "a User subject without apiGroup (server defaults it)",
      { kind: "RoleBinding", subjects: [{ kind: "User", name: "u" }] },
      {
        kind: "RoleBinding",
        subjects: [{ kind: "User", name: "u", apiGroup: "rbac.authorization.k8s.io" }],
      },
      true,
    ],
    [
      "a NetworkPolicy with egress [] declared and omitted live",
      { kind: "NetworkPolicy", spec: { podSelector: {}, policyTypes: ["Egress"], egress: [] } },
      { kind: "NetworkPolicy", spec: { podSelector: {}, policyTypes: ["Egress"] } },
      true,
    ],
    [
      "a NetworkPolicy with [{}] vs []",
      { kind: "NetworkPolicy", spec: { podSelector: {}, policyTypes: ["Egress"], egress: [{}] } },
      { kind: "NetworkPolicy", spec: { podSelector: {}, policyTypes: ["Egress"] } },
      false,
    ],
  ])("%s → %s", (_, declared, live, expected) => {
    expect(workspaceResourceMatches(declared, live)).toBe(expected);
  });
});

function problems(gateway: Record<string, unknown>): string[] {
  try {
    validateInstallationConfig({ openshell: { endpoint: "x:1", gateway } }, "t");
  } catch (err) {
    if (err instanceof ConfigurationError) return err.problems.map((p) => p.message);
    throw err;
  }
  return [];
}

describe("openshell.gateway validation", () => {
  const labels = { operatorNamespaceLabels: { "a.io/b": "c" } };
  it.each([
    ["no namespace label", {}, /operatorNamespaceLabels must have at least one entry/],
    [
      "a Secret",
      {
        ...labels,
        operatorWorkspaceResources: [{ apiVersion: "v1", kind: "Secret", metadata: { name: "s" } }],
      },
      /never a Secret/,
    ],
    [
      "a policy of another version",
      {
        ...labels,
        networkPolicyResources: [
          {
            apiVersion: "extensions/v1beta1",
            kind: "NetworkPolicy",
            metadata: { name: "p" },
            spec: {},
          },
        ],
      },
      /apiVersion must be networking\.k8s\.io\/v1/,
    ],
    [
      "a policy without spec",
      {
        ...labels,
        networkPolicyResources: [
          { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: "p" } },
        ],
      },
      /spec must be a NetworkPolicy spec/,
    ],
    [
      "a Compute policy name",
      {
        ...labels,
        networkPolicyResources: [
          {
            apiVersion: "networking.k8s.io/v1",
            kind: "NetworkPolicy",
            metadata: { name: "default-deny" },
            spec: {},
          },
        ],
      },
      /name of a Compute NetworkPolicy/,
    ],
    [
      "a namespace set",
      {
        ...labels,
        operatorWorkspaceResources: [
          { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "a", namespace: "x" } },
        ],
      },
      /metadata\.namespace must be absent/,
    ],
    [
      "a duplicate",
      {
        ...labels,
        operatorWorkspaceResources: [
          { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "a" } },
          { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "a" } },
        ],
      },
      /a second time/,
    ],
  ])("%s is refused by name", (_, gateway, expected) => {
    expect(problems(gateway).join("\n")).toMatch(expected);
  });

  it("a valid declaration passes", () => {
    expect(problems(labels)).toEqual([]);
  });
});
