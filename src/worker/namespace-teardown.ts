/**
 * The teardown pass's write of a Namespace, declared for the settle transaction: the store's
 * teardown outcome and — when it tombstoned the Namespace — IAM's removal of the Namespace's
 * bindings and restrictions, in that one transaction (control-plane.md §5): a tombstone never
 * outlives its policy, and a superseded pass removes nothing.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import { removeNamespacePolicy } from "../iam/namespace-policy.js";
import { applyTeardownOutcome, type TeardownOutcome } from "../store/namespace-outcomes.js";
import { inTransaction, type RecordWrite } from "./record-writes.js";

/** The write of a teardown `outcome` to Namespace `id` (a step: the policy depends on the row). */
export function teardownWrite(id: NamespaceId, outcome: TeardownOutcome): RecordWrite {
  return inTransaction(async (tx) => {
    const res = await applyTeardownOutcome(tx, id, outcome);
    if (outcome.to === "tombstoned" && res.outcome === "applied") {
      await removeNamespacePolicy(tx, id);
    }
    return res;
  });
}
