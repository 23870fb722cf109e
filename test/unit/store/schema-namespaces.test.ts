import { describe, expect, it } from "vitest";
import {
  NAMESPACE_STATUSES,
  NAMESPACE_STATUS_CODES,
  PLACEMENT_MODES,
} from "../../../src/domain/placement/namespace-status.js";
import { checkLiterals, migratedPgliteForFile, refusal, unique } from "../../harness/pglite.js";
import { namespaceRows, UID, type Row } from "./namespace-fixtures.js";

const db = await migratedPgliteForFile();
const { insertRow, update } = namespaceRows(db);

describe("namespaces vocabularies agree with the CHECK constraints", () => {
  it("statuses", async () => {
    expect(await checkLiterals(db, "namespaces_status")).toEqual([...NAMESPACE_STATUSES].sort());
  });
  it("placement modes", async () => {
    expect(await checkLiterals(db, "namespaces_placement_mode")).toEqual(
      [...PLACEMENT_MODES].sort(),
    );
  });
  it("every status code the store may write passes the code format", async () => {
    for (const code of NAMESPACE_STATUS_CODES) {
      const id = await insertRow();
      await update(id, "status_code = $2, status_reason = 'r', status_since = now()", [code]);
    }
  });
});

describe("namespaces CHECK constraints (insert)", () => {
  const long = (n: number): string => "a".repeat(n);
  it.each<[string, Row, string]>([
    ["an ID outside the pattern", { id: "xx_1" }, "namespaces_id_format"],
    ["an ID of 61 characters after ns_", { id: `ns_${long(61)}` }, "namespaces_id_format"],
    ["an empty name", { name: "" }, "namespaces_name_format"],
    ["a name of 201 characters", { name: long(201) }, "namespaces_name_format"],
    ["a name with a line break", { name: "a\nb" }, "namespaces_name_format"],
    ["an unknown placement mode", { placement_mode: "docker" }, "namespaces_placement_mode"],
    [
      "external without a selection",
      { placement_mode: "external" },
      "namespaces_external_selection",
    ],
    ["managed with a selection", { existing_namespace: "team-a" }, "namespaces_external_selection"],
    ["an unknown status", { status: "pending" }, "namespaces_status"],
    ["ready without a binding", { status: "ready" }, "namespaces_ready_is_bound"],
    ["failed without a reason", { status: "failed" }, "namespaces_failed_has_reason"],
    [
      "degraded without a binding",
      { status: "degraded", status_code: "X", status_reason: "r", status_since: new Date() },
      "namespaces_degraded_is_bound",
    ],
    [
      "degraded without a reason",
      { status: "degraded", kubernetes_namespace: "oce-dg-1", kubernetes_uid: UID },
      "namespaces_degraded_is_bound",
    ],
    [
      "an observed UID that is not a lowercase UUID",
      { observed_kubernetes_uid: "not-a-uid" },
      "namespaces_observed_kubernetes_uid_format",
    ],
    [
      "a code without a message",
      { status_code: "KUBERNETES_CONFLICT" },
      "namespaces_status_reason_complete",
    ],
    [
      "a lowercase code",
      { status_code: "conflict", status_reason: "r", status_since: new Date() },
      "namespaces_status_code_format",
    ],
    [
      "a message over 256 characters",
      { status_code: "X", status_reason: long(257), status_since: new Date() },
      "namespaces_status_reason_length",
    ],
    [
      "a UID that is not a lowercase UUID",
      { kubernetes_namespace: "oce-up", kubernetes_uid: UID.toUpperCase() },
      "namespaces_kubernetes_uid_format",
    ],
    [
      "a bound name without a UID",
      { kubernetes_namespace: "oce-1" },
      "namespaces_binding_complete",
    ],
    [
      "an external Namespace bound elsewhere",
      {
        placement_mode: "external",
        existing_namespace: "team-b",
        kubernetes_namespace: "team-c",
        kubernetes_uid: UID,
      },
      "namespaces_external_binding",
    ],
    ["a tombstone not deleting", { deleted_at: new Date() }, "namespaces_tombstone_was_deleting"],
    [
      "a bound name that is not a DNS label",
      { kubernetes_namespace: "Oce_Up", kubernetes_uid: UID },
      "namespaces_kubernetes_namespace_format",
    ],
    [
      "a retry on a ready Namespace",
      {
        status: "ready",
        kubernetes_namespace: "oce-rt-1",
        kubernetes_uid: UID,
        retry_requested_at: new Date(),
      },
      "namespaces_retry_is_provisioning",
    ],
  ])("refuses %s", async (_, overrides, constraint) => {
    expect(await refusal(insertRow(overrides))).toEqual({ code: "23514", constraint });
  });

  it.each([
    ["default", false],
    ["kube-system", false],
    ["kube-anything", false],
    ["openshift-config", false],
    ["oce-0123456789abcde", false],
    ["Upper", false],
    ["-leading", false],
    ["trailing-", false],
    ["under_score", false],
    ["a".repeat(64), false],
    ["a".repeat(63), true],
    ["customer-support-prod", true],
    ["kubeflow", true],
    ["default-team", true],
    ["x", true],
  ])("selection %s is accepted: %s", async (name, accepted) => {
    const attempt = insertRow({ placement_mode: "external", existing_namespace: name });
    if (accepted) await attempt;
    else {
      expect(await refusal(attempt)).toEqual({
        code: "23514",
        constraint: "namespaces_existing_namespace_format",
      });
    }
  });
});

describe("namespaces partial unique indexes", () => {
  it("one live claim per selected namespace; failed and deleting keep it, the tombstone frees it", async () => {
    const selected = unique("sel");
    const first = await insertRow({ placement_mode: "external", existing_namespace: selected });
    const claimAgain = (): Promise<string> =>
      insertRow({ placement_mode: "external", existing_namespace: selected });
    expect(await refusal(claimAgain())).toMatchObject({
      code: "23505",
      constraint: "namespaces_existing_namespace_claim",
    });
    await update(
      first,
      "status = 'failed', status_code = 'X', status_reason = 'r', status_since = now()",
    );
    expect((await refusal(claimAgain())).code).toBe("23505");
    await update(
      first,
      "status = 'deleting', status_code = NULL, status_reason = NULL, status_since = NULL",
    );
    expect((await refusal(claimAgain())).code).toBe("23505");
    await update(first, "deleted_at = now()");
    await claimAgain();
  });

  it("a Kubernetes namespace is bound to at most one live tenant", async () => {
    const bound = unique("oce");
    await insertRow({ kubernetes_namespace: bound, kubernetes_uid: UID });
    expect(await refusal(insertRow({ kubernetes_namespace: bound, kubernetes_uid: UID }))).toEqual({
      code: "23505",
      constraint: "namespaces_kubernetes_namespace_bound",
    });
  });

  it("a name is unique for ever, tombstones included", async () => {
    const name = unique("name");
    const id = await insertRow({ name, status: "deleting" });
    await update(id, "deleted_at = now()");
    expect(await refusal(insertRow({ name }))).toEqual({
      code: "23505",
      constraint: "namespaces_name_unique",
    });
  });
});
