/**
 * POST /namespaces/{id}/retry (lifecycle.md §4): administrators only, authorized before
 * existence; only failed or degraded Namespaces; the same ID back in provisioning with the
 * consent recorded, its placement item requeued with the administrator as frozen actor, and
 * the audit event — all read back from the database.
 */
import { describe, expect, it } from "vitest";
import { NamespaceSchema } from "../../../src/contract/namespaces.js";
import type { NamespaceId } from "../../../src/domain/placement/ids.js";
import { ensureWorkKey } from "../../../src/work/namespace-work.js";
import { applyProvisioningOutcome } from "../../../src/store/namespace-outcomes.js";
import {
  apiForFile,
  call,
  createNamespace,
  dataOf,
  errorOf,
  principalWith,
} from "../../harness/api-app.js";

const UID = "0f4c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6";
const fx = await apiForFile();

/** As the worker leaves a refused placement: failed, its work item failed permanently. */
async function failed(name: string): Promise<NamespaceId> {
  const id = await createNamespace(fx, name);
  await applyProvisioningOutcome(fx.raw, id, {
    to: "failed",
    reason: { code: "KUBERNETES_OWNERSHIP_CONFLICT", message: "markers" },
  });
  await fx.raw.query(
    "UPDATE work_items SET state = 'failed_permanent', finished_at = now() WHERE idempotency_key = $1",
    [ensureWorkKey(id)],
  );
  return id;
}

async function row(id: NamespaceId) {
  const ns = await fx.raw.query<{ status: string; retry: boolean; code: string | null }>(
    "SELECT status, retry_requested_at IS NOT NULL AS retry, status_code AS code FROM namespaces WHERE id = $1",
    [id],
  );
  const work = await fx.raw.query<{ state: string; actor: string; attempt_count: number }>(
    "SELECT state, actor, attempt_count FROM work_items WHERE idempotency_key = $1",
    [ensureWorkKey(id)],
  );
  return { namespace: ns.rows[0], work: work.rows[0] };
}

describe("POST /namespaces/{id}/retry", () => {
  it("returns a failed Namespace to provisioning under the same ID and requeues its placement", async () => {
    const id = await failed("retry-failed");
    const r = await call(fx.app, "POST", `/namespaces/${id}/retry`, { key: fx.adminKey });
    expect(r.status).toBe(202);
    expect(dataOf(r, NamespaceSchema)).toMatchObject({
      id,
      status: "provisioning",
      statusReason: null,
    });
    expect(await row(id)).toEqual({
      namespace: { status: "provisioning", retry: true, code: null },
      work: { state: "queued", actor: fx.adminId, attempt_count: 0 },
    });
    const audit = await fx.raw.query<{ outcome: string; details: { from?: string } }>(
      "SELECT outcome, details FROM audit_events WHERE action = 'namespaces.retry' AND resource_id = $1",
      [id],
    );
    expect(audit.rows).toMatchObject([{ outcome: "success", details: { from: "failed" } }]);
  });

  it("retries a degraded Namespace, keeping its recorded binding", async () => {
    const id = await createNamespace(fx, "retry-degraded");
    await fx.raw.query(
      `UPDATE namespaces SET status = 'ready', kubernetes_namespace = $2, kubernetes_uid = $3 WHERE id = $1`,
      [id, `oce-retry-${id.slice(3, 13)}`, UID],
    );
    await fx.raw.query(
      `UPDATE namespaces SET status = 'degraded', status_code = 'KUBERNETES_NAMESPACE_MISSING',
              status_reason = 'gone', status_since = now() WHERE id = $1`,
      [id],
    );
    await fx.raw.query(
      "UPDATE work_items SET state = 'succeeded', finished_at = now() WHERE idempotency_key = $1",
      [ensureWorkKey(id)],
    );
    const r = await call(fx.app, "POST", `/namespaces/${id}/retry`, { key: fx.adminKey });
    expect(r.status).toBe(202);
    expect(dataOf(r, NamespaceSchema).placement.uid).toBe(UID);
    expect(await row(id)).toMatchObject({
      namespace: { status: "provisioning", retry: true },
      work: { state: "queued", actor: fx.adminId },
    });
  });

  it("refuses a Namespace that is neither failed nor degraded (409) and changes nothing", async () => {
    const id = await createNamespace(fx, "retry-provisioning");
    const r = await call(fx.app, "POST", `/namespaces/${id}/retry`, { key: fx.adminKey });
    expect(r.status).toBe(409);
    expect(errorOf(r).error.message).toContain("is provisioning");
    expect((await row(id)).namespace).toEqual({ status: "provisioning", retry: false, code: null });
  });

  it("is for administrators only, and says nothing about existence to others", async () => {
    const id = await failed("retry-denied");
    const reader = await principalWith(fx, "retry-reader", [
      { action: "read", kind: "namespace" },
      { action: "create", kind: "namespace" },
    ]);
    const denied = await call(fx.app, "POST", `/namespaces/${id}/retry`, { key: reader.key });
    const missing = await call(
      fx.app,
      "POST",
      "/namespaces/ns_00000000-0000-4000-8000-000000000000/retry",
      {
        key: reader.key,
      },
    );
    expect([denied.status, missing.status]).toEqual([403, 403]);
    expect((await row(id)).namespace).toMatchObject({ status: "failed", retry: false });
    const asAdmin = await call(
      fx.app,
      "POST",
      "/namespaces/ns_00000000-0000-4000-8000-000000000000/retry",
      {
        key: fx.adminKey,
      },
    );
    expect(asAdmin.status).toBe(404);
  });
});
