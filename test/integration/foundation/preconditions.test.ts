import { PatchStrategy, type V1ConfigMap } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { kubeAs, refusedWith, uniqueName } from "../../harness/kube.js";

const admin = kubeAs("admin");

function mergePatch(ns: string, data: Record<string, string>, resourceVersion?: string) {
  return admin.objects.patch<V1ConfigMap>(
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "guarded", namespace: ns, ...(resourceVersion ? { resourceVersion } : {}) },
      data,
    },
    undefined,
    undefined,
    "occ-foundation-test",
    undefined,
    PatchStrategy.MergePatch,
  );
}

async function namespaceWithConfigMap(): Promise<{ ns: string; rv: string }> {
  const ns = uniqueName("found-rv");
  await admin.core.createNamespace({ body: { metadata: { name: ns } } });
  const cm = await admin.core.createNamespacedConfigMap({
    namespace: ns,
    body: { metadata: { name: "guarded" }, data: { v: "1" } },
  });
  const rv = cm.metadata?.resourceVersion;
  if (rv === undefined) throw new Error("created ConfigMap has no resourceVersion");
  // A second write makes the first resourceVersion stale.
  await mergePatch(ns, { v: "2" });
  return { ns, rv };
}

describe("resourceVersion preconditions", () => {
  it("refuses a server-side apply with a stale resourceVersion (409) and accepts the current one", async () => {
    const { ns, rv: stale } = await namespaceWithConfigMap();
    const apply = (resourceVersion: string) =>
      admin.objects.patch<V1ConfigMap>(
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "guarded", namespace: ns, resourceVersion },
          data: { v: "3" },
        },
        undefined,
        undefined,
        "occ-foundation-test",
        false,
        PatchStrategy.ServerSideApply,
      );

    expect(await refusedWith(apply(stale))).toBe(409);
    const unchanged = await admin.core.readNamespacedConfigMap({ name: "guarded", namespace: ns });
    expect(unchanged.data).toEqual({ v: "2" });

    const current = unchanged.metadata?.resourceVersion ?? "";
    const applied = await apply(current);
    expect(applied.data).toEqual({ v: "3" });
  });

  it("refuses a merge patch with a stale resourceVersion (409) and accepts the current one", async () => {
    const { ns, rv: stale } = await namespaceWithConfigMap();
    const patch = (resourceVersion: string) => mergePatch(ns, { v: "4" }, resourceVersion);
    expect(await refusedWith(patch(stale))).toBe(409);
    const current = await admin.core.readNamespacedConfigMap({ name: "guarded", namespace: ns });
    expect(current.data).toEqual({ v: "2" });
    const patched = await patch(current.metadata?.resourceVersion ?? "");
    expect(patched.data).toEqual({ v: "4" });
  });
});
