import { describe, expect, it } from "vitest";
import { freshNamespace, kubeAs, rawGet } from "../../harness/kube.js";

const admin = kubeAs("admin");

describe("NetworkPolicy defaulting by the API server", () => {
  it("adds protocol TCP to a port without one and drops an empty egress list", async () => {
    const ns = await freshNamespace(admin, "found-np");
    await admin.networking.createNamespacedNetworkPolicy({
      namespace: ns,
      body: {
        metadata: { name: "defaulted" },
        spec: {
          podSelector: {},
          policyTypes: ["Ingress", "Egress"],
          ingress: [{ ports: [{ port: 8080 }] }],
          egress: [],
        },
      },
    });

    const raw = (await rawGet(
      admin,
      `/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies/defaulted`,
    )) as { spec: Record<string, unknown> };

    expect(raw.spec.ingress).toEqual([{ ports: [{ port: 8080, protocol: "TCP" }] }]);
    expect(Object.keys(raw.spec)).not.toContain("egress");
    expect(raw.spec.policyTypes).toEqual(["Ingress", "Egress"]);
  });
});
