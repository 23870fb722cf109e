/**
 * Seed 000 step 1 and control-plane.md §7 with a real installed Compute Driver: the module
 * under `drivers/` is selected by the Installation configuration (`drivers.compute: {module}`)
 * of the real `occ api` and `occ worker` processes. Adopting an existing namespace is then
 * refused with 409 and nothing is stored, while a managed Namespace is placed by the module.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ADOPTION_REQUIRES_KUBERNETES } from "../../../src/services/compute-selection.js";
import { controlPlaneForFile, type ControlPlane } from "./control-plane.js";
import { callApi } from "../../harness/api.js";
import { tenantsOf } from "./tenants.js";

const MODULE = fileURLToPath(new URL("./drivers/installed-compute.js", import.meta.url));

let plane: ControlPlane;
controlPlaneForFile({ extraConfig: `drivers:\n  compute:\n    module: ${MODULE}\n` }, (started) => {
  plane = started;
});

async function stored(): Promise<{ namespaces: number; work: number; mutations: number }> {
  const res = await plane.db.query<{ namespaces: number; work: number; mutations: number }>(
    `SELECT (SELECT count(*)::int FROM namespaces) AS namespaces,
            (SELECT count(*)::int FROM work_items) AS work,
            (SELECT count(*)::int FROM audit_events WHERE kind = 'mutation') AS mutations`,
  );
  const row = res.rows[0];
  if (row === undefined) throw new Error("no counts");
  return row;
}

describe("an installed Compute Driver module selected by the Installation configuration", () => {
  it("refuses existingNamespace with 409 RESOURCE_CONFLICT and stores nothing", async () => {
    const before = await stored();
    const res = await callApi(plane, "POST", "/namespaces", {
      name: "adopt-installed",
      existingNamespace: "customer-support-prod",
    });
    expect(res.status).toBe(409);
    expect((res.body as { error: unknown }).error).toMatchObject({
      code: "RESOURCE_CONFLICT",
      message: ADOPTION_REQUIRES_KUBERNETES,
    });
    expect(await stored()).toEqual(before);
    const rows = await plane.db.query(
      `SELECT id FROM namespaces WHERE name = 'adopt-installed' OR existing_namespace = 'customer-support-prod'`,
    );
    expect(rows.rows).toEqual([]);
  });

  it("places a managed Namespace through the module (the worker loaded it, not the bundled driver)", async () => {
    const res = await callApi(plane, "POST", "/namespaces", { name: "managed-installed" });
    expect(res.status).toBe(201);
    const id = (res.body as { data: { id: string } }).data.id;
    const ready = await tenantsOf(plane).until(id, "ready", (n) => n.status === "ready");
    // The UID the module reports (drivers/installed-compute.js), recorded as the bound UID.
    expect(ready.placement.uid).toBe(id.slice(3));
  });
});
