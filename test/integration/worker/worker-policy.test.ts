import { describe, expect, it } from "vitest";
import { createNamespace } from "../../../src/services/namespaces/create.js";
import { NAMESPACE_WORK_KINDS } from "../../../src/work/namespace-work.js";
import { currentManagedName, type NamespaceId } from "../../../src/domain/index.js";
import type { EventObject } from "../../../src/drivers/kubernetes/client/index.js";
import { authorize } from "../../../src/iam/authorizer.js";
import { createBinding, deleteBinding } from "../../../src/iam/bindings.js";
import { createPrincipal, deletePrincipal } from "../../../src/iam/principals.js";
import { createRole } from "../../../src/iam/roles.js";
import { createWorkQueue } from "../../../src/queue/index.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import { namespaceWork, runNamespacePass } from "../../../src/worker/namespace-pass.js";
import {
  admin,
  createAllowAllPolicy,
  prepareBoundExternal,
  prepareExternal,
  readNamespace,
} from "../compute/fixtures.js";
import { eventually } from "../../harness/kube.js";
import { workerTestEnvironment } from "./environment.js";

const env = workerTestEnvironment();
const deps = (convergenceMs?: number) =>
  env.serviceDeps(convergenceMs !== undefined ? { convergenceMs } : {});

/** A principal holding namespace:create and installation:administer, Installation-wide. */
async function creator(name: string) {
  const p = await createPrincipal(env.db, { kind: "user", name });
  const r = await createRole(env.db, {
    name: `${name}-role`,
    permissions: [
      { action: "create", kind: "namespace" },
      { action: "read", kind: "namespace" },
      { action: "administer", kind: "installation" },
    ],
  });
  if (p.outcome !== "created" || r.outcome !== "created") throw new Error("fixture");
  const b = await createBinding(env.db, {
    principalId: p.principal.id,
    roleId: r.role.id,
    namespaceId: null,
  });
  if (b.outcome !== "created") throw new Error("fixture");
  return { principalId: p.principal.id, bindingId: b.binding.id };
}

/** A Namespace created through the service by a fresh {@link creator} named `who`. */
async function createdBy(
  who: string,
  input: { readonly name: string; readonly existingNamespace?: string },
  convergenceMs?: number,
) {
  const principal = await creator(who);
  const ns = await createNamespace(
    deps(convergenceMs),
    { principalId: principal.principalId },
    input,
  );
  return { who: principal, ns };
}

/**
 * Runs the pass of the Namespace `id`'s work. `readInClaim`: as the worker does, with the
 * target and the re-authorization read in the claim's statement; otherwise by the runner with
 * the same subquery after a claim made without it.
 */
async function passFor(id: NamespaceId, queuePolicy = {}, readInClaim = false) {
  const queue = createWorkQueue({ kinds: NAMESPACE_WORK_KINDS, policy: queuePolicy });
  const passDeps = {
    db: env.db,
    queue,
    compute: env.runtime.compute,
    ...(env.runtime.events !== null ? { events: env.runtime.events } : {}),
  };
  const attach = readInClaim ? namespaceWork(passDeps).target.sql : undefined;
  const claim = await env.claimOf(queue, id, {
    owner: "test",
    ...(attach === undefined ? {} : { attach }),
  });
  return runNamespacePass(passDeps, claim);
}

describe.each([
  ["read after the claim", false],
  ["in the claim's statement", true],
])("the worker re-authorizes the frozen actor, %s", (how, readInClaim) => {
  const tag = readInClaim ? "c" : "s";

  it("fails the Namespace with AUTHORIZATION_DENIED when installation:administer was revoked, and never touches the namespace", async () => {
    const prepared = await prepareExternal();
    const selected = prepared.metadata?.name ?? "";
    const { who, ns } = await createdBy(`revoked-admin-${tag}`, {
      name: `revoked-e-${tag}`,
      existingNamespace: selected,
    });
    await deleteBinding(env.db, who.bindingId);

    const summary = await passFor(ns.id, {}, readInClaim);
    expect(summary, how).toMatchObject({
      result: "applied",
      move: "fail",
      code: "AUTHORIZATION_DENIED",
    });
    const record = await getNamespace(env.db, ns.id);
    expect(record?.status).toBe("failed");
    expect(record?.statusCode).toBe("AUTHORIZATION_DENIED");
    expect((await readNamespace(selected))?.metadata?.resourceVersion).toBe(
      prepared.metadata?.resourceVersion,
    );
    const audit = await env.db.query<{ action: string; outcome: string }>(
      "SELECT action, outcome FROM audit_events WHERE resource_id = $1 ORDER BY occurred_at, id",
      [ns.id],
    );
    expect(audit.rows).toEqual([
      { action: "namespaces.create", outcome: "success" },
      { action: "namespaces.lifecycle.ensure", outcome: "failure" },
    ]);
  });

  it("fails the Namespace with ACTOR_REVOKED when the principal was deleted, and never creates its namespace", async () => {
    const { who, ns } = await createdBy(`deleted-creator-${tag}`, { name: `deleted-m-${tag}` });
    await deletePrincipal(env.db, who.principalId);

    const summary = await passFor(ns.id, {}, readInClaim);
    expect(summary, how).toMatchObject({ result: "applied", move: "fail", code: "ACTOR_REVOKED" });
    const record = await getNamespace(env.db, ns.id);
    expect(record?.status).toBe("failed");
    expect(record?.statusCode).toBe("ACTOR_REVOKED");
    expect(await readNamespace(currentManagedName(ns.id))).toBeUndefined();
  });

  it("goes on to the Driver while the actor still holds its grants", async () => {
    const { ns } = await createdBy(`holding-creator-${tag}`, { name: `holding-m-${tag}` });
    const summary = await passFor(ns.id, {}, readInClaim);
    expect(summary, how).toMatchObject({ result: "applied" });
    expect(summary, how).not.toMatchObject({ move: "fail" });
    expect((await getNamespace(env.db, ns.id))?.status).not.toBe("failed");
    // The Driver ran: the managed namespace exists (it may still wait for the tenant's RBAC).
    expect((await readNamespace(currentManagedName(ns.id)))?.metadata?.uid).toBeDefined();
  });
});

describe("the worker's outcome table", () => {
  it("a pending outcome does not spend an attempt, and past the convergence deadline the Namespace stays pending (lifecycle.md §4)", async () => {
    const prepared = await prepareExternal(); // no worker RoleBinding: stays pending
    // The deadline is fixed when the work is queued: 1.5 s after creation here.
    const { ns } = await createdBy(
      "pending-admin",
      { name: "stays-pending", existingNamespace: prepared.metadata?.name ?? "" },
      1_500,
    );
    const fast = { pendingBackoff: { baseMs: 1, maxMs: 1, jitter: 0 } };
    const first = await passFor(ns.id, fast);
    expect(first).toMatchObject({ move: "defer", code: "KUBERNETES_PERMISSION_PENDING" });
    const work = await env.db.query<{ attempt_count: number; state: string }>(
      "SELECT attempt_count, state FROM work_items WHERE subject = $1",
      [`namespace:${ns.id}`],
    );
    expect(work.rows[0]).toEqual({ attempt_count: 0, state: "queued" });
    expect((await getNamespace(env.db, ns.id))?.statusCode).toBe("KUBERNETES_PERMISSION_PENDING");

    await new Promise((r) => setTimeout(r, 1_600));
    const second = await passFor(ns.id, fast);
    expect(second).toMatchObject({ result: "applied", move: "defer" });
    // The queue gave up on this item, but waiting for a RoleBinding is no failure: the
    // Namespace stays provisioning with its reason, and the next resync or watch asks again.
    const record = await getNamespace(env.db, ns.id);
    expect(record?.status).toBe("provisioning");
    expect(record?.statusCode).toBe("KUBERNETES_PERMISSION_PENDING");
    const ended = await env.db.query<{ state: string }>(
      "SELECT state FROM work_items WHERE subject = $1",
      [`namespace:${ns.id}`],
    );
    expect(ended.rows).toEqual([{ state: "failed_permanent" }]);
  });
});

describe("Kubernetes Events", () => {
  it("records a Warning Event on the tenant namespace when a pass fails for a new reason", async () => {
    const { ns: prepared, name: selected } = await prepareBoundExternal();
    await createAllowAllPolicy(selected);
    const { ns } = await createdBy("event-admin", { name: "event-e", existingNamespace: selected });
    const summary = await passFor(ns.id);
    expect(summary).toMatchObject({ move: "fail", code: "KUBERNETES_OWNERSHIP_CONFLICT" });
    let events: readonly EventObject[] = [];
    await eventually("the Event", async () => {
      events = await admin.list("Event", { namespace: selected });
      return events.length > 0;
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "Warning", reason: "KUBERNETES_OWNERSHIP_CONFLICT" });
    expect(events[0]?.message).toContain("NetworkPolicy");
    expect((await readNamespace(selected))?.metadata?.resourceVersion).toBe(
      prepared.metadata?.resourceVersion,
    );
  });
});

describe("the re-authorization read in the claim's statement", () => {
  it("is current policy when the claim was made, for every request the pass needs", async () => {
    const prepared = await prepareExternal();
    const { who, ns } = await createdBy("claim-time-creator", {
      name: "claim-time-e",
      existingNamespace: prepared.metadata?.name ?? "",
    });
    const queue = createWorkQueue({ kinds: NAMESPACE_WORK_KINDS, policy: {} });
    const work = namespaceWork({ db: env.db, queue, compute: env.runtime.compute });
    const claim = await env.claimOf(queue, ns.id, { owner: "t", attach: work.target.sql });
    const targeted = work.target.read(claim.item, claim.attached ?? {});
    if (targeted === null) throw new Error("the claim read no Namespace");
    const { target, known } = targeted;
    const requests = work.permissions(claim.item, target) ?? [];
    expect(requests.map((r) => `${r.permission.kind}:${r.permission.action}`)).toEqual([
      "namespace:create",
      "installation:administer",
    ]);

    // Revoked after the claim: the claim's decisions are what policy said when it was made,
    // while a decision made now is a denial.
    await deleteBinding(env.db, who.bindingId);
    for (const request of requests) {
      expect(known?.(request)).toEqual({ allowed: true });
      expect(await authorize(env.db, who.principalId, request)).toMatchObject({
        allowed: false,
        reason: "no_grant",
      });
    }
    await queue.release(env.db, claim.lease);
  });
});
