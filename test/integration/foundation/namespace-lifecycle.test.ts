import { describe, expect, it } from "vitest";
import { eventually, kubeAs, refusedWith, uniqueName } from "../../harness/kube.js";

const admin = kubeAs("admin");

describe("the real namespace controller", () => {
  it("finalizes a deleted namespace until it really disappears", async () => {
    const name = uniqueName("found-del");
    const created = await admin.core.createNamespace({ body: { metadata: { name } } });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    await admin.core.createNamespacedConfigMap({
      namespace: name,
      body: { metadata: { name: "content" }, data: { a: "b" } },
    });

    await admin.core.deleteNamespace({ name });
    const during = await admin.core.readNamespace({ name });
    expect(during.metadata?.deletionTimestamp).toBeDefined();
    expect(during.status?.phase).toBe("Terminating");

    await eventually(`namespace ${name} to be gone`, async () => {
      const status = await refusedWith(admin.core.readNamespace({ name })).catch(() => 0);
      return status === 404;
    });
  });
});
