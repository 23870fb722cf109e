/**
 * The Namespace pass reads its target in the claim's own statement (`WorkHandler.target`, the
 * queue's `attach`), or with the same subquery after a claim made without it: both must find
 * the record the store has — the same record when the Namespace is in scope, nothing when it
 * is not — and a pass that finds nothing completes the work as superseded without touching
 * the cluster.
 */
import { describe, expect, it } from "vitest";
import { currentManagedName, type NamespaceId } from "../../../src/domain/index.js";
import { createWorkQueue } from "../../../src/queue/index.js";
import { deleteNamespace } from "../../../src/services/namespaces/delete.js";
import { applyTeardownOutcome } from "../../../src/store/namespace-outcomes.js";
import { getNamespace, markNamespaceDeleting } from "../../../src/store/namespaces.js";
import { NAMESPACE_WORK_KINDS, type NamespaceWorkKind } from "../../../src/work/namespace-work.js";
import { namespaceWork } from "../../../src/worker/namespace-pass.js";
import { runPass } from "../../../src/worker/pass-runner.js";
import { readNamespace } from "../compute/fixtures.js";
import { FAST, workerTestEnvironment } from "./environment.js";

const env = workerTestEnvironment();
/** Claims the Namespace's item of `kind` with the target read attached. */
async function claimWithTarget(id: NamespaceId, kind: NamespaceWorkKind = "namespace.ensure") {
  const queue = createWorkQueue({ kinds: NAMESPACE_WORK_KINDS, policy: FAST });
  const work = namespaceWork({ db: env.db, queue, compute: env.runtime.compute });
  const attach = work.target.sql;
  const claim = await env.claimOf(queue, id, { owner: "t", attach, kind });
  /** The target as the claim read it, and as the runner reads it after a claim without it. */
  const read = async () => ({
    inClaim: work.target.read(claim.item, claim.attached ?? {})?.target ?? null,
    after:
      work.target.read(claim.item, await queue.attached(env.db, claim.item.id, attach))?.target ??
      null,
  });
  return { queue, work, claim, read };
}

describe("the Namespace read in the claim", () => {
  it("is the stored record, read in the claim or after it, for a provisioning Namespace", async () => {
    const id = await env.created("claimed-target");
    const { queue, claim, read } = await claimWithTarget(id);
    expect(claim.attached).toBeDefined();
    const { inClaim, after } = await read();
    expect(inClaim).toEqual(await getNamespace(env.db, id));
    expect(after).toEqual(inClaim);
    expect(inClaim?.status).toBe("provisioning");
    await queue.release(env.db, claim.lease);
  });

  it("is nothing when the Namespace left the state the work expects, and the pass completes superseded without placing it", async () => {
    const id = await env.created("claimed-gone");
    await markNamespaceDeleting(env.db, id);
    const { queue, work, claim, read } = await claimWithTarget(id);
    expect(claim.item.kind).toBe("namespace.ensure");
    expect(await read()).toEqual({ inClaim: null, after: null });

    expect(await runPass({ db: env.db, queue }, work, claim)).toEqual({ result: "superseded" });
    const item = await env.db.query<{ state: string; last_code: string | null }>(
      "SELECT state, last_code FROM work_items WHERE id = $1",
      [claim.item.id],
    );
    expect(item.rows).toEqual([{ state: "succeeded", last_code: "SUPERSEDED" }]);
    expect((await getNamespace(env.db, id))?.status).toBe("deleting");
    expect(await readNamespace(currentManagedName(id))).toBeUndefined();
  });

  it("is nothing for a tombstoned Namespace, read either way (tombstones are left out)", async () => {
    const id = await env.created("claimed-tombstone");
    const principal = { principalId: env.boot.administratorId };
    await deleteNamespace(env.serviceDeps(), principal, id);
    const tombstoned = await applyTeardownOutcome(env.db, id, { to: "tombstoned" });
    expect(tombstoned.outcome).toBe("applied");
    const { queue, claim, read } = await claimWithTarget(id, "namespace.teardown");
    expect(claim.attached?.ns_id).toBe(id); // the row is read: the tombstone is left out after
    expect(await read()).toEqual({ inClaim: null, after: null });
    await queue.release(env.db, claim.lease);
  });
});
