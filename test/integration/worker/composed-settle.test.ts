/**
 * The settle of a `done` Namespace pass composed into the fenced completion's statement (the
 * runner's choice when every write of the declared record is composable, `record-writes.ts`):
 * it must leave exactly the rows the settle transaction leaves, and a stale lease must publish
 * nothing through it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { currentManagedName, type NamespaceId } from "../../../src/domain/index.js";
import { createWorkQueue } from "../../../src/queue/index.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import { NAMESPACE_WORK_KINDS, type NamespaceWorkKind } from "../../../src/work/namespace-work.js";
import { namespaceWork } from "../../../src/worker/namespace-pass.js";
import { runPass } from "../../../src/worker/pass-runner.js";
import { runGated } from "../../../src/store/gated-writes.js";
import { inTransaction, settleWay } from "../../../src/worker/record-writes.js";
import { bindTenantRole } from "../../harness/rbac.js";
import { FAST, workerTestEnvironment } from "./environment.js";

const env = workerTestEnvironment();

beforeAll(async () => {
  // The default Namespace bootstrap queued: placed first, so only this file's items are left.
  const queue = createWorkQueue({ kinds: NAMESPACE_WORK_KINDS, policy: FAST });
  const deps = { db: env.db, queue, compute: env.runtime.compute };
  await passUntilSettled(queue, namespaceWork(deps), env.boot.defaultNamespace.id);
});

type Queue = ReturnType<typeof createWorkQueue<NamespaceWorkKind>>;
type Handler = ReturnType<typeof namespaceWork>;

const claimOf = (queue: Queue, id: NamespaceId, owner: string) => env.claimOf(queue, id, { owner });

/**
 * Passes over the Namespace until one is not pending: the first creates the managed namespace
 * and waits for the worker's RoleBinding in it, which the operator's chart grants (bound here).
 */
async function passUntilSettled(queue: Queue, handler: Handler, id: NamespaceId, owner = "w") {
  const deps = { db: env.db, queue };
  for (let round = 0; round < 10; round += 1) {
    const summary = await runPass(deps, handler, await claimOf(queue, id, owner));
    if (!("move" in summary) || summary.move !== "defer") return summary;
    if (summary.code === "KUBERNETES_PERMISSION_PENDING") {
      await bindTenantRole(currentManagedName(id), "occ-worker");
    }
  }
  throw new Error(`${id}: still pending after 10 passes`);
}

/** What a settled pass left: the Namespace's status columns, its item and its lifecycle events. */
async function settledRows(id: NamespaceId) {
  const ns = await getNamespace(env.db, id);
  const work = await env.db.query<{
    state: string;
    claim_token: string | null;
    last_code: string | null;
  }>("SELECT state, claim_token, last_code FROM work_items WHERE subject = $1", [
    `namespace:${id}`,
  ]);
  const events = await env.db.query<{
    action: string;
    outcome: string;
    details: Record<string, unknown>;
  }>(
    `SELECT action, outcome, details FROM audit_events
     WHERE resource_id = $1 AND kind = 'lifecycle' ORDER BY occurred_at, id`,
    [id],
  );
  return {
    status: ns?.status,
    statusCode: ns?.statusCode,
    statusReason: ns?.statusReason,
    bound: ns?.kubernetesUid !== null && ns?.kubernetesUid === ns?.observedKubernetesUid,
    kubernetesNamespace: ns?.kubernetesNamespace,
    reconciled: ns?.lastReconciledAt !== null,
    work: work.rows,
    events: events.rows.map((e): typeof e => ({
      action: e.action,
      outcome: e.outcome,
      // The IDs differ between the two Namespaces; their presence and shape must not.
      details: { ...e.details, workItem: typeof e.details.workItem },
    })),
  };
}

describe("the composed settle of a done pass", () => {
  it("leaves the same rows as the settle transaction: provisioning → ready, binding, item succeeded, one lifecycle event", async () => {
    const queue = createWorkQueue({ kinds: NAMESPACE_WORK_KINDS, policy: FAST });
    const deps = { db: env.db, queue, compute: env.runtime.compute };
    const composedId = await env.created("composed-ready");
    const plainId = await env.created("transaction-ready");

    const base = namespaceWork(deps);
    const ways: string[] = [];
    const observed: Handler = {
      ...base,
      record(claim, target, verdict, workState) {
        const declared = base.record(claim, target, verdict, workState);
        ways.push(settleWay({ kind: "done" }, declared));
        return declared;
      },
    };
    const composed = await passUntilSettled(queue, observed, composedId);
    expect(ways.at(-1)).toBe("composed");
    // The same writes, each run on its own: the runner settles in a transaction.
    const inTx: Handler = {
      ...base,
      record(claim, target, verdict, workState) {
        const declared = base.record(claim, target, verdict, workState);
        const writes = declared.writes.map((w) =>
          "composable" in w ? inTransaction((tx) => runGated(tx, [w.composable])) : w,
        );
        ways.push(settleWay({ kind: "done" }, { ...declared, writes }));
        return { ...declared, writes };
      },
    };
    const plain = await passUntilSettled(queue, inTx, plainId);
    expect(ways.at(-1)).toBe("plain");

    expect(composed).toEqual({ result: "applied", move: "complete", code: null });
    expect(plain).toEqual(composed);
    const [a, b] = [await settledRows(composedId), await settledRows(plainId)];
    expect(a).toMatchObject({ status: "ready", statusCode: null, bound: true, reconciled: true });
    expect(a.work).toEqual([{ state: "succeeded", claim_token: null, last_code: null }]);
    expect(a.events.at(-1)).toMatchObject({
      action: "namespaces.lifecycle.ensure",
      outcome: "success",
      details: { from: "provisioning", to: "ready", worker: "w", workItem: "string" },
    });
    expect({ ...b, kubernetesNamespace: undefined }).toEqual({
      ...a,
      kubernetesNamespace: undefined,
    });
  });

  it("publishes nothing for a lease another worker took over: the Namespace stays provisioning, no ready event", async () => {
    let aheadMs = 0; // the queue's clock: the real one, moved forward when the pass stalls
    const queue = createWorkQueue({
      kinds: NAMESPACE_WORK_KINDS,
      policy: FAST,
      clock: { now: () => new Date(Date.now() + aheadMs) },
    });
    const deps = { db: env.db, queue, compute: env.runtime.compute };
    const id = await env.created("composed-stale");
    const base = namespaceWork(deps);
    let successor: Awaited<ReturnType<typeof claimOf>> | undefined;
    // The pass that would make it ready stalls past its lease, and another worker reclaims it.
    const stalling: Handler = {
      ...base,
      async reconcile(db, item, target) {
        const reconciled = await base.reconcile(db, item, target);
        const { verdict } = reconciled;
        if (verdict.kind === "ensure" && verdict.result.outcome === "ready") {
          aheadMs = queue.policy.leaseMs + 1_000;
          successor = await claimOf(queue, id, "successor");
        }
        return reconciled;
      },
    };
    const summary = await passUntilSettled(queue, stalling, id, "stalled");

    expect(summary).toEqual({ result: "stale" });
    const rows = await settledRows(id);
    expect(rows).toMatchObject({ status: "provisioning" });
    expect(rows.events.filter((e) => e.details.to === "ready")).toEqual([]);
    expect(rows.work.map((w) => [w.state, w.claim_token])).toEqual([
      ["claimed", successor?.lease.token],
    ]);
  });
});
