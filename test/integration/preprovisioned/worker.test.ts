import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NamespaceId } from "../../../src/domain/index.js";
import type { Db } from "../../../src/store/db.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import type { RunningWorker } from "../../../src/worker/worker.js";
import { eventually } from "../../harness/kube.js";
import { startTestGateway, type TestGateway } from "../../harness/openshell-gateway.js";
import { admin } from "../../harness/preprovisioned.js";
import {
  bootstrapAndPrepare,
  profileConfig,
  startBoundWorker,
  type Prepared,
  closePrepared,
} from "./fixtures.js";

let db: Db;
let drop: () => Promise<void>;
let gw: TestGateway;
let p: Prepared;
let id: NamespaceId;
let worker: RunningWorker | undefined;

beforeAll(async () => {
  gw = await startTestGateway();
  ({ db, drop, id, p } = await bootstrapAndPrepare(profileConfig({}, gw.endpoint)));
});

afterAll(async () => {
  await worker?.stop();
  await gw.stop();
  closePrepared(p);
  await drop();
});

describe("occ worker in the preprovisioned profile", () => {
  it("verifies the namespace at startup, places the bound Namespace and it becomes ready", async () => {
    worker = await startBoundWorker(db, p, { endpoint: gw.endpoint });
    await eventually(
      "the bound Namespace is ready",
      async () => (await getNamespace(db, id))?.status === "ready",
      30_000,
    );
    const record = await getNamespace(db, id);
    expect(record).toMatchObject({ kubernetesNamespace: p.name, kubernetesUid: p.binding.uid });
    expect(gw.workspaces.get(p.name)?.phase).toBe("WORKSPACE_PHASE_ACTIVE");
    expect(
      await admin().find("ResourceQuota", { name: "openclaw-quota", namespace: p.name }),
    ).toBeDefined();
  });
});
