import { afterAll, describe, expect, it } from "vitest";
import { getNamespace } from "../../../src/store/namespaces.js";
import type { RunningWorker } from "../../../src/worker/worker.js";
import { eventually } from "../../harness/kube.js";
import { admin } from "../../harness/preprovisioned.js";
import { startBoundWorker } from "./fixtures.js";
import { gatewayStackForFile } from "./file-stacks.js";

const s = gatewayStackForFile();
let worker: RunningWorker | undefined;

afterAll(async () => {
  await worker?.stop();
});

describe("occ worker in the preprovisioned profile", () => {
  it("verifies the namespace at startup, places the bound Namespace and it becomes ready", async () => {
    worker = await startBoundWorker(s.db, s.p, { endpoint: s.gw.endpoint });
    await eventually(
      "the bound Namespace is ready",
      async () => (await getNamespace(s.db, s.id))?.status === "ready",
      30_000,
    );
    const record = await getNamespace(s.db, s.id);
    expect(record).toMatchObject({ kubernetesNamespace: s.p.name, kubernetesUid: s.p.binding.uid });
    expect(s.gw.workspaces.get(s.p.name)?.phase).toBe("WORKSPACE_PHASE_ACTIVE");
    expect(
      await admin().find("ResourceQuota", { name: "openclaw-quota", namespace: s.p.name }),
    ).toBeDefined();
  });
});
