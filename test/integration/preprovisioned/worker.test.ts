import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import type { NamespaceId } from "../../../src/domain/index.js";
import { bootstrap } from "../../../src/services/bootstrap.js";
import { namespaceQueueConfig } from "../../../src/work/namespace-work.js";
import { workQueuePolicy } from "../../../src/work/queues.js";
import { startWorkerProcess } from "../../../src/main/processes.js";
import type { Db } from "../../../src/store/db.js";
import { migrate } from "../../../src/store/migrate.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import type { RunningWorker } from "../../../src/worker/worker.js";
import { createTestDatabase } from "../../harness/db.js";
import { eventually } from "../../harness/kube.js";
import { startTestGateway, type TestGateway } from "../../harness/openshell-gateway.js";
import { admin } from "../../harness/preprovisioned.js";
import { prepare, profileConfig, profileDocument, type Prepared } from "./fixtures.js";

let db: Db;
let drop: () => Promise<void>;
let gw: TestGateway;
let p: Prepared;
let id: NamespaceId;
let worker: RunningWorker | undefined;

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  drop = () => database.drop();
  await migrate(db);
  gw = await startTestGateway();
  const boot = await bootstrap({
    db,
    queue: namespaceQueueConfig({ policy: workQueuePolicy(profileConfig()) }),
    compute: { source: "bundled", name: "kubernetes" },
    controllerNamespace: "openclaw-system",
    contentChecks: [],
  });
  id = boot.defaultNamespace.id;
  p = await prepare(profileConfig({}, gw.endpoint), id);
});

afterAll(async () => {
  await worker?.stop();
  await gw.stop();
  p.worker.close();
  p.api.close();
  await drop();
});

describe("occ worker in the preprovisioned profile", () => {
  it("verifies the namespace at startup, places the bound Namespace and it becomes ready", async () => {
    const config = validateInstallationConfig(
      {
        ...profileDocument({}, gw.endpoint),
        kubernetes: { kubeconfig: p.identities.worker.kubeconfig },
      },
      "test",
    );
    worker = await startWorkerProcess({
      db,
      config,
      logger: pino({ level: "silent" }),
      env: { OCC_PREPROVISIONED_NAMESPACE: JSON.stringify(p.binding) },
    });
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
