import { describe, expect, it } from "vitest";
import { kubeAs, refusedWith, uniqueName } from "../../harness/kube.js";

const admin = kubeAs("admin");
const worker = kubeAs("occ-worker");

describe("RBAC on the real API server", () => {
  it("refuses occ-worker a ResourceQuota until a RoleBinding grants it, without any restart", async () => {
    const ns = uniqueName("found-rbac");
    await admin.core.createNamespace({ body: { metadata: { name: ns } } });
    const quota = () =>
      worker.core.createNamespacedResourceQuota({
        namespace: ns,
        body: { metadata: { name: "openclaw-quota" }, spec: { hard: { pods: "10" } } },
      });

    expect(await refusedWith(quota())).toBe(403);

    await admin.rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: "quota-writer" },
        rules: [{ apiGroups: [""], resources: ["resourcequotas"], verbs: ["create", "get"] }],
      },
    });
    await admin.rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: "occ-worker" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "quota-writer" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "occ-worker" }],
      },
    });

    const created = await quota();
    expect(created.spec?.hard).toEqual({ pods: "10" });
    const read = await admin.core.readNamespacedResourceQuota({
      name: "openclaw-quota",
      namespace: ns,
    });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
  });
});
