import { PatchStrategy, type V1ConfigMap } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { freshNamespace, kubeAs, rejectionOf, statusOf } from "../../harness/kube.js";

const admin = kubeAs("admin");

type Write = (
  ns: string,
  data: Record<string, string>,
  resourceVersion?: string,
) => Promise<V1ConfigMap>;

function configMap(
  ns: string,
  data: Record<string, string>,
  resourceVersion?: string,
): V1ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "guarded", namespace: ns, ...(resourceVersion ? { resourceVersion } : {}) },
    data,
  };
}

/** A write of the ConfigMap by PATCH with `strategy` (`force`: server-side apply's flag). */
const patchWith =
  (strategy: PatchStrategy, force?: boolean): Write =>
  (ns, data, rv) =>
    admin.objects.patch(
      configMap(ns, data, rv),
      undefined,
      undefined,
      "occ-foundation-test",
      force,
      strategy,
    );

const apply = patchWith(PatchStrategy.ServerSideApply, false);
const mergePatch = patchWith(PatchStrategy.MergePatch);

/** The status code and message of a refused call; fails the test if the call succeeded. */
async function refusal(
  call: Promise<unknown>,
): Promise<{ code: number | undefined; body: string }> {
  const err = await rejectionOf(call);
  const body = typeof err === "object" && err !== null && "body" in err ? String(err.body) : "";
  return { code: statusOf(err), body };
}

const create: Write = (ns, data) =>
  admin.core.createNamespacedConfigMap({
    namespace: ns,
    body: configMap(ns, data),
    fieldManager: "occ-foundation-test",
  });

describe.each([
  ["server-side apply (force=false)", apply, apply],
  ["merge patch", create, mergePatch],
] as const)("resourceVersion precondition on %s", (_label, first, write) => {
  it("refuses a stale resourceVersion with 409 and leaves the object as it was", async () => {
    const ns = await freshNamespace(admin, "found-rv");
    const original = await first(ns, { v: "1" });
    const stale = original.metadata?.resourceVersion ?? "";
    await write(ns, { v: "2" }); // makes `stale` out of date

    const refused = await refusal(write(ns, { v: "3" }, stale));
    expect(refused.code).toBe(409);
    expect(refused.body).toContain("the object has been modified");
    const now = await admin.core.readNamespacedConfigMap({ name: "guarded", namespace: ns });
    expect(now.data).toEqual({ v: "2" });

    const accepted = await write(ns, { v: "3" }, now.metadata?.resourceVersion ?? "");
    expect(accepted.data).toEqual({ v: "3" });
    expect(accepted.metadata?.uid).toBe(original.metadata?.uid);
  });
});

describe("server-side apply field ownership", () => {
  it("refuses a non-forced apply over a field another manager owns (409 FieldManagerConflict)", async () => {
    const ns = await freshNamespace(admin, "found-ssa");
    await admin.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: "guarded" }, data: { v: "operator" } },
      fieldManager: "operator-tool",
    });
    const refused = await refusal(apply(ns, { v: "occ" }));
    expect(refused.code).toBe(409);
    expect(refused.body).toContain("FieldManagerConflict");
    const now = await admin.core.readNamespacedConfigMap({ name: "guarded", namespace: ns });
    expect(now.data).toEqual({ v: "operator" });
  });
});
