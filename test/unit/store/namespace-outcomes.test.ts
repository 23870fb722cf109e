import { describe, expect, it } from "vitest";
import type { NamespaceId } from "../../../src/domain/placement/ids.js";
import {
  applyProvisioningOutcome,
  applyTeardownOutcome,
} from "../../../src/store/namespace-outcomes.js";
import { getNamespace, markNamespaceDeleting } from "../../../src/store/namespaces.js";
import { migratedPgliteForFile, unique } from "../../harness/pglite.js";
import { namespaceRecords, UID } from "./namespace-fixtures.js";

const db = await migratedPgliteForFile();
const { create, tombstone } = namespaceRecords(db);

describe("applyProvisioningOutcome", () => {
  it("pending keeps provisioning with the reason, and keeps `since` while the code is unchanged", async () => {
    const ns = await create({ mode: "external", existingNamespace: unique("sel") });
    const reason = {
      code: "KUBERNETES_PERMISSION_PENDING" as const,
      message: "grant the RoleBinding",
    };
    const first = await applyProvisioningOutcome(db, ns.id, { to: "provisioning", reason });
    const second = await applyProvisioningOutcome(db, ns.id, { to: "provisioning", reason });
    const changed = await applyProvisioningOutcome(db, ns.id, {
      to: "provisioning",
      reason: { code: "KUBERNETES_API_UNAVAILABLE", message: "503" },
    });
    if (
      first.outcome !== "applied" ||
      second.outcome !== "applied" ||
      changed.outcome !== "applied"
    ) {
      throw new Error("expected applied");
    }
    expect(first.namespace).toMatchObject({
      status: "provisioning",
      statusCode: "KUBERNETES_PERMISSION_PENDING",
      statusReason: "grant the RoleBinding",
    });
    expect(second.namespace.statusSince).toEqual(first.namespace.statusSince);
    expect(changed.namespace.statusCode).toBe("KUBERNETES_API_UNAVAILABLE");
    expect(changed.namespace.statusSince?.getTime()).toBeGreaterThanOrEqual(
      first.namespace.statusSince?.getTime() ?? Infinity,
    );
  });

  it("ready clears the reason and records the binding", async () => {
    const selected = unique("sel");
    const ns = await create({ mode: "external", existingNamespace: selected });
    await applyProvisioningOutcome(db, ns.id, {
      to: "provisioning",
      reason: { code: "KUBERNETES_PERMISSION_PENDING", message: "wait" },
    });
    const res = await applyProvisioningOutcome(db, ns.id, {
      to: "ready",
      binding: { namespace: selected, uid: UID },
    });
    expect(res.outcome === "applied" && res.namespace).toMatchObject({
      status: "ready",
      statusCode: null,
      statusReason: null,
      statusSince: null,
      kubernetesNamespace: selected,
      kubernetesUid: UID,
    });
  });

  it("records a binding seen while still pending, and refuses to replace it", async () => {
    const ns = await create();
    const binding = { namespace: unique("oce"), uid: UID };
    const res = await applyProvisioningOutcome(db, ns.id, {
      to: "provisioning",
      reason: { code: "KUBERNETES_NAMESPACE_PENDING", message: "not Active yet" },
      binding,
    });
    expect(res.outcome === "applied" && res.namespace.kubernetesUid).toBe(UID);
    await expect(
      applyProvisioningOutcome(db, ns.id, {
        to: "ready",
        binding: { ...binding, uid: "1f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6" },
      }),
    ).rejects.toThrow(/binding is written once/);
  });

  it("accepts a new UID while an administrator's retry is pending, and clears the retry", async () => {
    const ns = await create();
    const name = unique("oce");
    await applyProvisioningOutcome(db, ns.id, {
      to: "provisioning",
      reason: { code: "KUBERNETES_PERMISSION_PENDING", message: "no RoleBinding yet" },
      binding: { namespace: name, uid: UID },
    });
    await db.query("UPDATE namespaces SET retry_requested_at = now() WHERE id = $1", [ns.id]);
    const other = "2f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6";
    const res = await applyProvisioningOutcome(db, ns.id, {
      to: "provisioning",
      reason: { code: "KUBERNETES_PERMISSION_PENDING", message: "no RoleBinding yet" },
      binding: { namespace: name, uid: other },
    });
    expect(res.outcome === "applied" && res.namespace).toMatchObject({
      kubernetesUid: other,
      observedKubernetesUid: other,
      retryRequestedAt: null,
    });
    expect(res.outcome === "applied" && res.namespace.lastReconciledAt).toBeInstanceOf(Date);
  });

  it("failed stores the code and a sanitized reason", async () => {
    const ns = await create();
    const res = await applyProvisioningOutcome(db, ns.id, {
      to: "failed",
      reason: { code: "AUTHORIZATION_DENIED", message: `revoked\n${"x".repeat(400)}` },
    });
    if (res.outcome !== "applied") throw new Error("expected applied");
    expect(res.namespace.status).toBe("failed");
    expect(res.namespace.statusCode).toBe("AUTHORIZATION_DENIED");
    expect(res.namespace.statusReason?.length).toBe(256);
    expect(res.namespace.statusReason).not.toContain("\n");
  });

  it.each([
    [
      "ready",
      async (id: NamespaceId) => {
        await applyProvisioningOutcome(db, id, {
          to: "ready",
          binding: { namespace: unique("oce"), uid: UID },
        });
      },
    ],
    [
      "deleting",
      async (id: NamespaceId) => {
        await markNamespaceDeleting(db, id);
      },
    ],
    ["tombstoned", tombstone],
  ])("is superseded once the Namespace is %s, changing nothing", async (_, moveOn) => {
    const ns = await create();
    await moveOn(ns.id);
    const before = await getNamespace(db, ns.id, { includeTombstoned: true });
    const res = await applyProvisioningOutcome(db, ns.id, {
      to: "failed",
      reason: { code: "KUBERNETES_API_REJECTED", message: "late result" },
    });
    expect(res).toEqual({ outcome: "superseded", current: before });
  });
});

describe("applyTeardownOutcome", () => {
  // The Namespace's IAM policy goes in the caller's write: test/unit/worker/namespace-teardown.
  it("keeps deleting with a reason, then tombstones", async () => {
    const ns = await create();
    await markNamespaceDeleting(db, ns.id);

    const waiting = await applyTeardownOutcome(db, ns.id, {
      to: "deleting",
      reason: { code: "KUBERNETES_NAMESPACE_PENDING", message: "terminating" },
    });
    expect(waiting.outcome === "applied" && waiting.namespace).toMatchObject({
      status: "deleting",
      statusCode: "KUBERNETES_NAMESPACE_PENDING",
      deletedAt: null,
    });

    const done = await applyTeardownOutcome(db, ns.id, { to: "tombstoned" });
    expect(done.outcome === "applied" && done.namespace).toMatchObject({
      status: "deleting",
      statusCode: null,
    });
    expect(done.outcome === "applied" && done.namespace.deletedAt).toBeInstanceOf(Date);
  });

  it("is superseded for a Namespace that is not deleting, or already tombstoned", async () => {
    const ns = await create();
    expect((await applyTeardownOutcome(db, ns.id, { to: "tombstoned" })).outcome).toBe(
      "superseded",
    );
    await tombstone(ns.id);
    const again = await applyTeardownOutcome(db, ns.id, { to: "tombstoned" });
    expect(again.outcome === "superseded" && again.current?.deletedAt).toBeInstanceOf(Date);
  });
});
