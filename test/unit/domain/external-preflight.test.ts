import { describe, expect, it } from "vitest";
import { preflightExternal } from "../../../src/domain/placement/external-preflight.js";
import { ANNOTATIONS, LABELS, type HasMetadata } from "../../../src/domain/index.js";
import { OTHER, TENANT, namespace, preparedExternal } from "./fixtures.js";

const ctx = { tenantId: TENANT, routing: null, controllerNamespace: "openclaw-system" };
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
      { name: "customer-support-prod", namespace: ns, policies },
      ctx,
    );
    expect(checks(found)).toEqual(expected);
    for (const f of found) expect(f.message).not.toContain(OTHER);
  });

  it.each(["kube-system", "default", "openclaw-system", "oce-0123456789abcde", "Not_A_Label"])(
    "refuses to preflight %s as a selection at all",
    (name) => {
      const found = preflightExternal(
        { name, namespace: preparedExternal({ name }), policies: [] },
        ctx,
      );
      expect(checks(found)).toEqual(["explicit-selection"]);
      expect(found[0]?.message).toMatch(/existingNamespace/);
    },
  );
});
