import { describe, expect, it } from "vitest";
import type { SqlParam } from "../../../src/store/db.js";
import { migratedPgliteForFile, refusal } from "../../harness/pglite.js";
import { namespaceRows, OTHER_UID, UID, type Row } from "./namespace-fixtures.js";

const db = await migratedPgliteForFile();
const { insertRow, update } = namespaceRows(db);

describe("namespaces update guard (trigger)", () => {
  it.each<[string, Row, string, SqlParam[], string]>([
    ["renaming", {}, "name = $2", ["renamed"], "namespaces_identity_immutable"],
    ["changing the ID", {}, "id = $2", ["ns_other"], "namespaces_identity_immutable"],
    [
      "changing created_at",
      {},
      "created_at = created_at - interval '1 day'",
      [],
      "namespaces_identity_immutable",
    ],
    [
      "changing the selection",
      { placement_mode: "external", existing_namespace: "team-z" },
      "existing_namespace = $2",
      ["team-y"],
      "namespaces_selection_immutable",
    ],
    [
      "clearing the selection",
      { placement_mode: "external", existing_namespace: "team-x" },
      "existing_namespace = NULL, placement_mode = 'managed'",
      [],
      "namespaces_selection_immutable",
    ],
    [
      "changing the mode",
      {},
      "placement_mode = 'preprovisioned'",
      [],
      "namespaces_selection_immutable",
    ],
    [
      "replacing the recorded UID of a ready Namespace",
      { status: "ready", kubernetes_namespace: "oce-uid-1", kubernetes_uid: UID },
      "kubernetes_uid = $2",
      [OTHER_UID],
      "namespaces_binding_write_once",
    ],
    [
      "replacing the recorded UID of a failed Namespace",
      {
        status: "failed",
        status_code: "X",
        status_reason: "r",
        status_since: new Date(),
        kubernetes_namespace: "oce-uid-4",
        kubernetes_uid: UID,
      },
      "kubernetes_uid = $2",
      [OTHER_UID],
      "namespaces_binding_write_once",
    ],
    [
      "clearing the recorded UID of a degraded Namespace",
      {
        status: "degraded",
        status_code: "X",
        status_reason: "r",
        status_since: new Date(),
        kubernetes_namespace: "oce-uid-5",
        kubernetes_uid: UID,
      },
      "kubernetes_uid = NULL, kubernetes_namespace = NULL",
      [],
      "namespaces_binding_write_once",
    ],
    [
      "ready to failed",
      { status: "ready", kubernetes_namespace: "oce-r-2", kubernetes_uid: UID },
      "status = 'failed', status_code = 'X', status_reason = 'r', status_since = now()",
      [],
      "namespaces_status_transition",
    ],
    [
      "degraded to failed",
      {
        status: "degraded",
        status_code: "X",
        status_reason: "r",
        status_since: new Date(),
        kubernetes_namespace: "oce-d-1",
        kubernetes_uid: UID,
      },
      "status = 'failed'",
      [],
      "namespaces_status_transition",
    ],
    [
      "moving the binding to another name",
      { kubernetes_namespace: "oce-uid-2", kubernetes_uid: UID },
      "kubernetes_namespace = 'oce-uid-3'",
      [],
      "namespaces_binding_write_once",
    ],
    [
      "ready back to provisioning",
      { status: "ready", kubernetes_namespace: "oce-r-1", kubernetes_uid: UID },
      "status = 'provisioning'",
      [],
      "namespaces_status_transition",
    ],
    [
      "failed to ready",
      {
        status: "failed",
        status_code: "X",
        status_reason: "r",
        status_since: new Date(),
        kubernetes_namespace: "oce-f-1",
        kubernetes_uid: UID,
      },
      "status = 'ready', status_code = NULL, status_reason = NULL, status_since = NULL",
      [],
      "namespaces_status_transition",
    ],
    [
      "leaving deleting",
      { status: "deleting" },
      "status = 'provisioning'",
      [],
      "namespaces_status_transition",
    ],
    ["tombstoning before deleting", {}, "deleted_at = now()", [], "namespaces_status_transition"],
  ])("refuses %s", async (_, initial, set, params, constraint) => {
    const id = await insertRow(initial);
    expect(await refusal(update(id, set, params))).toEqual({ code: "23514", constraint });
  });

  it.each<[string, Row, string]>([
    [
      "ready → degraded",
      { status: "ready", kubernetes_namespace: "oce-ok-4", kubernetes_uid: UID },
      "status = 'degraded', status_code = 'X', status_reason = 'r', status_since = now()",
    ],
    [
      "degraded → ready",
      {
        status: "degraded",
        status_code: "X",
        status_reason: "r",
        status_since: new Date(),
        kubernetes_namespace: "oce-ok-5",
        kubernetes_uid: UID,
      },
      "status = 'ready', status_code = NULL, status_reason = NULL, status_since = NULL",
    ],
    [
      "failed → provisioning (retry)",
      { status: "failed", status_code: "X", status_reason: "r", status_since: new Date() },
      "status = 'provisioning', status_code = NULL, status_reason = NULL, status_since = NULL",
    ],
    [
      "degraded → provisioning (retry)",
      {
        status: "degraded",
        status_code: "X",
        status_reason: "r",
        status_since: new Date(),
        kubernetes_namespace: "oce-ok-6",
        kubernetes_uid: UID,
      },
      "status = 'provisioning'",
    ],
    [
      "degraded → deleting",
      {
        status: "degraded",
        status_code: "X",
        status_reason: "r",
        status_since: new Date(),
        kubernetes_namespace: "oce-ok-7",
        kubernetes_uid: UID,
      },
      "status = 'deleting'",
    ],
    [
      "a new UID while provisioning (a managed namespace recreated after a retry)",
      { kubernetes_namespace: "oce-ok-8", kubernetes_uid: UID },
      "kubernetes_uid = '" + OTHER_UID + "'",
    ],
    [
      "a new UID and ready in the update that leaves degraded (the preprovisioned rebind)",
      {
        status: "degraded",
        status_code: "X",
        status_reason: "r",
        status_since: new Date(),
        kubernetes_namespace: "oce-ok-9",
        kubernetes_uid: UID,
      },
      "kubernetes_uid = '" +
        OTHER_UID +
        "', status = 'ready', status_code = NULL, status_reason = NULL, status_since = NULL",
    ],
    [
      "recording the last verdict and the observed UID",
      {},
      "last_reconciled_at = now(), observed_kubernetes_uid = '" + OTHER_UID + "'",
    ],
    [
      "provisioning → ready",
      { kubernetes_namespace: "oce-ok-1", kubernetes_uid: UID },
      "status = 'ready'",
    ],
    [
      "provisioning → failed",
      {},
      "status = 'failed', status_code = 'X', status_reason = 'r', status_since = now()",
    ],
    ["provisioning → deleting", {}, "status = 'deleting'"],
    [
      "ready → deleting",
      { status: "ready", kubernetes_namespace: "oce-ok-2", kubernetes_uid: UID },
      "status = 'deleting'",
    ],
    [
      "failed → deleting",
      { status: "failed", status_code: "X", status_reason: "r", status_since: new Date() },
      "status = 'deleting', status_code = NULL, status_reason = NULL, status_since = NULL",
    ],
    ["deleting → tombstone", { status: "deleting" }, "deleted_at = now()"],
    [
      "recording a binding once",
      {},
      "kubernetes_namespace = 'oce-ok-3', kubernetes_uid = '" + UID + "'",
    ],
  ])("allows %s", async (_, initial, set) => {
    const id = await insertRow(initial);
    await update(id, set);
  });

  it("freezes a tombstone and refuses deleting any row", async () => {
    const id = await insertRow({ status: "deleting" });
    await update(id, "deleted_at = now()");
    expect(await refusal(update(id, "updated_at = now()"))).toEqual({
      code: "23514",
      constraint: "namespaces_tombstone_frozen",
    });
    expect(await refusal(db.query("DELETE FROM namespaces WHERE id = $1", [id]))).toEqual({
      code: "23514",
      constraint: "namespaces_never_deleted",
    });
  });
});
