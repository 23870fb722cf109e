/**
 * `keepsBinding` decides in JavaScript whether a pass may settle in the composed statement,
 * where a refused binding cannot throw; the UPDATE's guard decides the same in SQL. They must
 * agree on every combination, or a composed settle would silently write nothing (or overwrite
 * a write-once binding). Each row runs both against the same record, in PostgreSQL.
 */
import { describe, expect, it } from "vitest";
import { newNamespaceId } from "../../../src/domain/placement/ids.js";
import {
  applyProvisioningOutcome,
  keepsBinding,
  type ProvisioningOutcome,
} from "../../../src/store/namespace-outcomes.js";
import { getNamespace, insertNamespace } from "../../../src/store/namespaces.js";
import { migratedPgliteForFile, unique } from "../../harness/pglite.js";

const db = await migratedPgliteForFile();

const RECORDED = "11111111-1111-4111-8111-111111111111";
const OTHER = "22222222-2222-4222-8222-222222222222";

type Seen = "none" | "recorded" | "other";
type Row = [
  recordedUid: string | null,
  retryPending: boolean,
  seen: Seen,
  to: "ready" | "provisioning" | "failed",
  keeps: boolean,
];

const uidOf = (seen: Seen): string | null =>
  seen === "none" ? null : seen === "recorded" ? RECORDED : OTHER;

/** Every combination; `keeps` is false only for another UID over a recorded one, no retry. */
const ROWS: Row[] = [];
for (const recordedUid of [null, RECORDED]) {
  for (const retryPending of [false, true]) {
    for (const seen of ["none", "recorded", "other"] as const) {
      for (const to of ["ready", "provisioning", "failed"] as const) {
        if (to === "ready" && seen === "none") continue; // a ready outcome always has its binding
        const keeps = !(recordedUid !== null && seen === "other" && !retryPending);
        ROWS.push([recordedUid, retryPending, seen, to, keeps]);
      }
    }
  }
}

function outcomeOf(seen: Seen, to: Row[3], namespace: string): ProvisioningOutcome {
  const uid = uidOf(seen);
  const binding = uid === null ? undefined : { namespace, uid };
  const reason = { code: "KUBERNETES_API_UNAVAILABLE", message: "test" } as const;
  if (to === "ready") {
    if (binding === undefined) throw new Error("a ready outcome has a binding");
    return { to, binding, observedUid: binding.uid };
  }
  return binding === undefined ? { to, reason } : { to, reason, binding };
}

describe("keepsBinding agrees with the provisioning UPDATE's UID guard", () => {
  it("covers both sides of the decision", () => {
    expect(ROWS.filter((r) => r[4]).length).toBeGreaterThan(0);
    expect(ROWS.filter((r) => !r[4]).length).toBeGreaterThan(0);
  });

  it.each(ROWS)(
    "recorded %s, retry pending %s, pass saw %s, to %s → keeps %s",
    async (recordedUid, retryPending, seen, to, keeps) => {
      const name = unique("kb");
      const inserted = await insertNamespace(db, {
        id: newNamespaceId(),
        name,
        placement: { mode: "managed" },
      });
      if (inserted.outcome !== "inserted") throw new Error("fixture");
      const id = inserted.namespace.id;
      await db.query(
        `UPDATE namespaces SET kubernetes_uid = $2, kubernetes_namespace = $3,
           retry_requested_at = CASE WHEN $4::boolean THEN now() END WHERE id = $1`,
        [id, recordedUid, recordedUid === null ? null : name, retryPending],
      );
      const record = await getNamespace(db, id);
      if (record === undefined) throw new Error("fixture");
      const outcome = outcomeOf(seen, to, name);

      expect(keepsBinding(record, outcome)).toBe(keeps);
      const applied = await applyProvisioningOutcome(db, id, outcome).then(
        (r) => r.outcome,
        () => "refused" as const,
      );
      expect(applied).toBe(keeps ? "applied" : "refused");
      const after = await getNamespace(db, id);
      expect(after?.status).toBe(keeps ? to : "provisioning");
      expect(after?.kubernetesUid).toBe(keeps ? (uidOf(seen) ?? recordedUid) : recordedUid);
    },
  );
});
