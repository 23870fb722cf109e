/**
 * The runbook's rebind, end to end on the real cluster and PostgreSQL, as the chart-rendered
 * identities: the bound namespace is deleted and recreated with `occ preprovisioned render |
 * kubectl apply -f -`, `occ preprovisioned values` reads the new UID, the worker is restarted
 * with it as helm would (a new OCC_PREPROVISIONED_NAMESPACE), and the platform Namespace is
 * ready again under the same ID with the new UID recorded and an audit event — no database
 * edit. A binding whose UID matches neither stays refused.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { parse } from "yaml";
import { type NamespaceId } from "../../../src/domain/index.js";
import { StartupRefusedError } from "../../../src/main/preprovisioned-startup.js";
import { listAuditEvents } from "../../../src/store/audit-events.js";
import type { Db } from "../../../src/store/db.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import type { RunningWorker } from "../../../src/worker/worker.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { startTestGateway, type TestGateway } from "../../harness/openshell-gateway.js";
import { admin, kubectl, retargetTenantRoleRefs } from "../../harness/preprovisioned.js";
import {
  driverFor,
  passInput,
  bootstrapAndPrepare,
  type Prepared,
  profileConfig,
  profileDocument,
  renderWithCli,
  valuesWithCli,
  startBoundWorker,
  closePrepared,
} from "./fixtures.js";

let db: Db;
let drop: () => Promise<void>;
let gw: TestGateway;
let p: Prepared;
let id: NamespaceId;
let configFile: string;

beforeAll(async () => {
  gw = await startTestGateway();
  ({ db, drop, id, p } = await bootstrapAndPrepare(profileConfig({}, gw.endpoint)));
  configFile = join(inject("env").runDir, `${uniqueName("pp-rebind")}.yaml`);
  await writeFile(
    configFile,
    JSON.stringify({
      ...profileDocument({}, gw.endpoint),
      kubernetes: { kubeconfig: p.identities.worker.kubeconfig },
    }),
  );
});

afterAll(async () => {
  await gw.stop();
  closePrepared(p);
  await drop();
});

function runWorker(uid: string): Promise<RunningWorker> {
  return startBoundWorker(db, p, { endpoint: gw.endpoint, binding: { namespaceId: id, uid } });
}

describe("rebinding a recreated preprovisioned namespace", () => {
  let oldUid = "";
  let newUid = "";

  it("the bound Namespace is ready under the first namespace's UID", async () => {
    oldUid = p.binding.uid;
    const worker = await runWorker(oldUid);
    try {
      await eventually(
        "ready",
        async () => (await getNamespace(db, id))?.status === "ready",
        60_000,
      );
    } finally {
      await worker.stop();
    }
    expect((await getNamespace(db, id))?.kubernetesUid).toBe(oldUid);
  }, 300_000);

  it("delete + recreate with render | kubectl apply, values, worker restarted → ready, new UID, audited", async () => {
    await admin().delete("Namespace", { name: p.name }, { uid: oldUid });
    await eventually(
      "the namespace is gone",
      async () => (await admin().find("Namespace", { name: p.name })) === undefined,
      120_000,
    );
    const rendered = renderWithCli(id, configFile, p.identities);
    expect(rendered.status, rendered.stderr).toBe(0);
    kubectl(
      "operator",
      ["apply", "-f", "-"],
      retargetTenantRoleRefs(rendered.stdout, p.identities),
    );
    const values = valuesWithCli(id, configFile);
    expect(values.status, values.stderr).toBe(0);
    newUid = (parse(values.stdout) as { preprovisionedNamespace: { uid: string } })
      .preprovisionedNamespace.uid;
    expect(newUid).not.toBe(oldUid);
    expect(newUid).toBe((await admin().get("Namespace", { name: p.name })).metadata.uid);

    const worker = await runWorker(newUid);
    try {
      const record = await getNamespace(db, id);
      expect(record).toMatchObject({
        status: "ready",
        kubernetesNamespace: p.name,
        kubernetesUid: newUid,
        observedKubernetesUid: newUid,
        statusCode: null,
      });
    } finally {
      await worker.stop();
    }
    // Compute's objects exist in the NEW namespace: it is isolated, not just recorded.
    for (const [kind, name] of [
      ["ResourceQuota", "openclaw-quota"],
      ["NetworkPolicy", "default-deny"],
    ] as const) {
      const live = await admin().find(kind, {
        name,
        namespace: p.name,
      });
      expect(live, `${kind} ${name}`).toBeDefined();
    }
    const events = await listAuditEvents(db, {
      limit: 50,
      resource: { kind: "namespace", id },
    });
    const rebind = events.items.find((e) => e.action === "namespaces.lifecycle.rebind");
    expect(rebind).toMatchObject({
      kind: "lifecycle",
      outcome: "success",
      details: { fromUid: oldUid, toUid: newUid, to: "ready", namespace: p.name },
    });
  }, 600_000);

  it("a UID that matches neither stays refused with KUBERNETES_OWNERSHIP_CONFLICT", async () => {
    const neither = "00000000-0000-4000-8000-00000000beef";
    // The worker refuses to start: the live namespace does not have the bound UID.
    await expect(runWorker(neither)).rejects.toThrow(StartupRefusedError);
    await expect(runWorker(neither)).rejects.toThrow("metadata.uid equals the bound uid");
    // A pass under that binding refuses the namespace permanently.
    const result = await driverFor(p, [], { namespaceId: id, uid: neither }).ensureNamespace({
      ...passInput(id),
      boundUid: newUid,
    });
    expect(result).toMatchObject({
      outcome: "failed",
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      retryable: false,
    });
    // The recorded binding is unchanged.
    expect(await getNamespace(db, id)).toMatchObject({ status: "ready", kubernetesUid: newUid });
  }, 300_000);
});
