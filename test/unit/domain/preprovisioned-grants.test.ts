import { describe, expect, it } from "vitest";
import {
  describePermissions,
  subjectOfUsername,
  uncoveredPermissions,
  type GrantRule,
} from "../../../src/domain/index.js";

const REQUIRED: readonly GrantRule[] = [
  { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: ["get", "list"] },
  { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
];

describe("uncoveredPermissions", () => {
  it.each([
    ["nothing granted: everything missing", [], 3],
    [
      "exactly the rules",
      [
        {
          apiGroups: ["networking.k8s.io"],
          resources: ["networkpolicies"],
          verbs: ["get", "list"],
        },
        { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
      ],
      0,
    ],
    ["wildcards cover everything", [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }], 0],
    [
      "a rule limited to resourceNames covers nothing",
      [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"], resourceNames: ["one"] }],
      3,
    ],
    [
      "the built-in self-review rules only (a missing RoleBinding)",
      [
        {
          apiGroups: ["authorization.k8s.io"],
          resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
          verbs: ["create"],
        },
      ],
      3,
    ],
    [
      "one verb short",
      [
        { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: ["get"] },
        { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
      ],
      1,
    ],
    [
      "the right resource in another group",
      [{ apiGroups: ["extensions"], resources: ["networkpolicies", "secrets"], verbs: ["*"] }],
      3,
    ],
  ] as const)("%s", (_, granted, missing) => {
    expect(uncoveredPermissions(REQUIRED, granted)).toHaveLength(missing);
  });

  it("names what is missing", () => {
    expect(describePermissions(uncoveredPermissions(REQUIRED, []))).toBe(
      "get networkpolicies.networking.k8s.io, list networkpolicies.networking.k8s.io, get secrets",
    );
  });
});

describe("subjectOfUsername", () => {
  it.each([
    [
      "system:serviceaccount:openclaw-system:occ-worker",
      { kind: "ServiceAccount", namespace: "openclaw-system", name: "occ-worker" },
    ],
    ["occ-worker", { kind: "User", name: "occ-worker" }],
    ["system:serviceaccount:broken", { kind: "User", name: "system:serviceaccount:broken" }],
  ])("%s", (username, subject) => {
    expect(subjectOfUsername(username)).toEqual(subject);
  });
});
