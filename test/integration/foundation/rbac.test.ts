import { describe, expect, it } from "vitest";
import { newNamespaceId, tenantOwnershipMarkers } from "../../../src/domain/index.js";
import { kubeAs, refusedWith, uniqueName } from "../../harness/kube.js";

const admin = kubeAs("admin");
const worker = kubeAs("occ-worker");

describe("RBAC on the real API server", () => {
  it("refuses occ-worker a ResourceQuota until a RoleBinding grants it, without any restart", async () => {
    // A namespace bound to a tenant and a quota carrying its markers: the admission policies
    // the harness installs admit exactly such writes, so RBAC is what this test varies.
    const ns = uniqueName("found-rbac");
    const tenant = newNamespaceId();
    const markers = tenantOwnershipMarkers(tenant);
    await admin.core.createNamespace({
      body: { metadata: { name: ns, labels: { "openclaw.dev/namespace": tenant } } },
    });
    const quota = () =>
      worker.core.createNamespacedResourceQuota({
        namespace: ns,
        body: {
          metadata: { name: "openclaw-quota", ...markers },
          spec: { hard: { pods: "10" } },
        },
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
