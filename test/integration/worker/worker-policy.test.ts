import { describe, expect, it } from "vitest";
import { createNamespace } from "../../../src/services/namespaces/create.js";
import { NAMESPACE_WORK_KINDS } from "../../../src/work/namespace-work.js";
import { type NamespaceId } from "../../../src/domain/index.js";
import type { EventObject } from "../../../src/drivers/kubernetes/client/index.js";
import { createBinding, deleteBinding } from "../../../src/iam/bindings.js";
import { createPrincipal } from "../../../src/iam/principals.js";
import { createRole } from "../../../src/iam/roles.js";
import { createWorkQueue } from "../../../src/queue/index.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import { runNamespacePass } from "../../../src/worker/namespace-pass.js";
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

async function passFor(id: NamespaceId, queuePolicy = {}) {
  const queue = createWorkQueue({ kinds: NAMESPACE_WORK_KINDS, policy: queuePolicy });
  for (;;) {
    const claim = await queue.claim(env.db, { owner: "test" });
    if (claim === null) throw new Error("no claimable work");
    if (claim.item.subject === `namespace:${id}`) {
      return runNamespacePass(
        {
          db: env.db,
          queue,
          compute: env.compute.driver,
          ...(env.compute.events !== undefined ? { events: env.compute.events } : {}),
        },
        claim,
      );
    }
    await queue.release(env.db, claim.lease);
  }
}

describe("the worker re-authorizes the frozen actor", () => {
  it("fails the Namespace with AUTHORIZATION_DENIED when installation:administer was revoked, and never touches the namespace", async () => {
    const who = await creator("revoked-admin");
    const prepared = await prepareExternal();
    const selected = prepared.metadata?.name ?? "";
    const ns = await createNamespace(
      deps(),
      { principalId: who.principalId },
      {
        name: "revoked-e",
        existingNamespace: selected,
      },
    );
    await deleteBinding(env.db, who.bindingId);

    const summary = await passFor(ns.id);
    expect(summary).toMatchObject({
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
});

describe("the worker's outcome table", () => {
  it("a pending outcome does not spend an attempt, and past the convergence deadline the Namespace stays pending (lifecycle.md §4)", async () => {
    const who = await creator("pending-admin");
    const prepared = await prepareExternal(); // no worker RoleBinding: stays pending
    // The deadline is fixed when the work is queued: 1.5 s after creation here.
    const ns = await createNamespace(
      deps(1_500),
      { principalId: who.principalId },
      {
        name: "stays-pending",
        existingNamespace: prepared.metadata?.name ?? "",
      },
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
    const who = await creator("event-admin");
    const { ns: prepared, name: selected } = await prepareBoundExternal();
    await createAllowAllPolicy(selected);
    const ns = await createNamespace(
      deps(),
      { principalId: who.principalId },
      { name: "event-e", existingNamespace: selected },
    );
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
