import { describe, expect, it } from "vitest";
import {
  ANNOTATIONS,
  LABELS,
  newNamespaceId,
  type EnsureNamespaceResult,
  type K8sNamespace,
} from "../../../src/domain/index.js";
import { uniqueName } from "../../harness/kube.js";
import {
  admin,
  createAllowAllPolicy,
  external,
  grantChartRolesBeforeAll,
  newTenant,
  permanentFailure,
  prepareBoundExternal,
  prepareExternal,
  readNamespace,
  workerDriver,
} from "./fixtures.js";

grantChartRolesBeforeAll();

/**
 * Runs one pass and asserts the namespace is byte-for-byte unchanged (same resourceVersion).
 * A terminating namespace's status is still being updated by the namespace controller, so
 * there the worker's write count and the metadata are compared instead.
 */
async function refusedUnchanged(
  ns: K8sNamespace,
  id = newTenant(),
  compare: "resourceVersion" | "metadata" = "resourceVersion",
): Promise<EnsureNamespaceResult> {
  const name = ns.metadata?.name ?? "";
  const { driver, client } = workerDriver();
  const result = await driver.ensureNamespace(external(id, name));
  expect(client.counter.writes()).toBe(0);
  const after = await readNamespace(name);
  if (compare === "resourceVersion") {
    expect(after?.metadata?.resourceVersion).toBe(ns.metadata?.resourceVersion);
  } else {
    expect(after?.metadata?.labels).toEqual(ns.metadata?.labels);
    expect(after?.metadata?.annotations).toEqual(ns.metadata?.annotations);
  }
  return result;
}

describe("external placement refuses, permanently and without touching the namespace", () => {
  it("a namespace that does not exist (and never creates it)", async () => {
    const name = uniqueName("missing");
    const { driver, client } = workerDriver();
    const result = await driver.ensureNamespace(external(newTenant(), name));
    expect(result).toMatchObject(permanentFailure("KUBERNETES_NAMESPACE_MISSING"));
    expect(client.counter.writes()).toBe(0);
    expect(await readNamespace(name)).toBeUndefined();
  });

  it("a namespace without the lifecycle annotation", async () => {
    const ns = await prepareExternal({ omitAnnotations: [ANNOTATIONS.lifecycle] });
    const result = await refusedUnchanged(ns);
    expect(result).toMatchObject(permanentFailure("KUBERNETES_OWNERSHIP_CONFLICT"));
    if (result.outcome === "failed") expect(result.reason).toContain(ANNOTATIONS.lifecycle);
  });

  it.each([LABELS.podSecurityEnforce, LABELS.podSecurityAudit, LABELS.podSecurityWarn])(
    "Pod Security label %s not restricted",
    async (key) => {
      const ns = await prepareExternal({ labels: { [key]: "baseline" } });
      const result = await refusedUnchanged(ns);
      expect(result).toMatchObject(permanentFailure("KUBERNETES_OWNERSHIP_CONFLICT"));
      if (result.outcome === "failed") expect(result.reason).toContain(key);
    },
  );

  it.each([
    ["label", LABELS.namespace],
    ["annotation", ANNOTATIONS.namespaceId],
    ["label", LABELS.gatewayNamespace],
  ] as const)("a foreign %s %s, named by key and never by value", async (where, key) => {
    const foreign = newNamespaceId();
    const ns = await prepareExternal(
      where === "label" ? { labels: { [key]: foreign } } : { annotations: { [key]: foreign } },
    );
    const result = await refusedUnchanged(ns);
    expect(result).toMatchObject(permanentFailure("KUBERNETES_OWNERSHIP_CONFLICT"));
    if (result.outcome === "failed") {
      expect(result.reason).toContain(key);
      expect(result.reason).not.toContain(foreign);
    }
  });

  it("another namespace already claims the tenant", async () => {
    const id = newTenant();
    await prepareExternal({ labels: { [LABELS.namespace]: id } });
    const ns = await prepareExternal();
    const result = await refusedUnchanged(ns, id);
    expect(result).toMatchObject(permanentFailure("KUBERNETES_OWNERSHIP_CONFLICT"));
  });

  it("a terminating namespace", async () => {
    const ns = await prepareExternal();
    const name = ns.metadata?.name ?? "";
    // A finalizer on an object inside keeps the namespace Terminating until it is removed.
    await admin.create("ConfigMap", {
      metadata: { name: "held", namespace: name, finalizers: ["example.com/hold"] },
    });
    await admin.delete("Namespace", { name }, { uid: ns.metadata?.uid ?? "" });
    const terminating = await readNamespace(name);
    expect(terminating?.metadata?.deletionTimestamp).toBeDefined();
    try {
      const result = await refusedUnchanged(terminating ?? ns, newTenant(), "metadata");
      expect(result).toMatchObject(permanentFailure("KUBERNETES_NAMESPACE_INACTIVE"));
    } finally {
      await admin.patch(
        "ConfigMap",
        { name: "held", namespace: name },
        { metadata: { finalizers: null } },
        { type: "merge" },
      );
    }
  });

  it("a foreign allow-all NetworkPolicy (additive policies widen isolation)", async () => {
    const { ns, name } = await prepareBoundExternal();
    await createAllowAllPolicy(name);
    const result = await refusedUnchanged(ns);
    expect(result).toMatchObject(permanentFailure("KUBERNETES_OWNERSHIP_CONFLICT"));
    if (result.outcome === "failed") {
      expect(result.reason).toContain("NetworkPolicy");
      expect(result.reason).not.toContain("allow-all");
    }
  });
});
