/**
 * The runbook's rebind, end to end on the real cluster and PostgreSQL, as the chart-rendered
 * identities: the bound namespace is deleted and recreated with `occ preprovisioned render |
 * kubectl apply -f -`, `occ preprovisioned values` reads the new UID, the worker is restarted
 * with it as helm would (a new OCC_PREPROVISIONED_NAMESPACE), and the platform Namespace is
 * ready again under the same ID with the new UID recorded and an audit event — no database
 * edit. A binding whose UID matches neither stays refused.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { StartupRefusedError } from "../../../src/services/preprovisioned/startup.js";
import { listAuditEvents } from "../../../src/store/audit-events.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import type { RunningWorker } from "../../../src/worker/worker.js";
import { eventually } from "../../harness/kube.js";
import { writeRunConfig } from "../../harness/run-files.js";
import { admin, kubectl, retargetTenantRoleRefs } from "../../harness/preprovisioned.js";
import {
  driverFor,
  passInput,
  profileDocument,
  renderWithCli,
  valuesWithCli,
  startBoundWorker,
} from "./fixtures.js";
import { gatewayStackForFile } from "./file-stacks.js";

const s = gatewayStackForFile();
let configFile: string;

beforeAll(async () => {
  configFile = await writeRunConfig("pp-rebind", {
    ...profileDocument({}, s.gw.endpoint),
    kubernetes: { kubeconfig: s.p.identities.worker.kubeconfig },
  });
});

function runWorker(uid: string): Promise<RunningWorker> {
  return startBoundWorker(s.db, s.p, {
    endpoint: s.gw.endpoint,
    binding: { namespaceId: s.id, uid },
  });
}

describe("rebinding a recreated preprovisioned namespace", () => {
  let oldUid = "";
  let newUid = "";

  it("the bound Namespace is ready under the first namespace's UID", async () => {
    oldUid = s.p.binding.uid;
    const worker = await runWorker(oldUid);
    try {
      await eventually(
        "ready",
        async () => (await getNamespace(s.db, s.id))?.status === "ready",
        60_000,
      );
    } finally {
      await worker.stop();
    }
    expect((await getNamespace(s.db, s.id))?.kubernetesUid).toBe(oldUid);
  }, 300_000);

  it("delete + recreate with render | kubectl apply, values, worker restarted → ready, new UID, audited", async () => {
    await admin().delete("Namespace", { name: s.p.name }, { uid: oldUid });
    await eventually(
      "the namespace is gone",
      async () => (await admin().find("Namespace", { name: s.p.name })) === undefined,
      120_000,
    );
    const rendered = renderWithCli(s.id, configFile, s.p.identities);
    expect(rendered.status, rendered.stderr).toBe(0);
    kubectl(
      "operator",
      ["apply", "-f", "-"],
      retargetTenantRoleRefs(rendered.stdout, s.p.identities),
    );
    const values = valuesWithCli(s.id, configFile);
    expect(values.status, values.stderr).toBe(0);
    newUid = (parse(values.stdout) as { preprovisionedNamespace: { uid: string } })
      .preprovisionedNamespace.uid;
    expect(newUid).not.toBe(oldUid);
    expect(newUid).toBe((await admin().get("Namespace", { name: s.p.name })).metadata.uid);

    const worker = await runWorker(newUid);
    try {
      const record = await getNamespace(s.db, s.id);
      expect(record).toMatchObject({
        status: "ready",
        kubernetesNamespace: s.p.name,
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
        namespace: s.p.name,
      });
      expect(live, `${kind} ${name}`).toBeDefined();
    }
    const events = await listAuditEvents(s.db, {
      limit: 50,
      resource: { kind: "namespace", id: s.id },
    });
    const rebind = events.items.find((e) => e.action === "namespaces.lifecycle.rebind");
    expect(rebind).toMatchObject({
      kind: "lifecycle",
      outcome: "success",
      details: { fromUid: oldUid, toUid: newUid, to: "ready", namespace: s.p.name },
    });
  }, 600_000);

  it("a UID that matches neither stays refused with KUBERNETES_OWNERSHIP_CONFLICT", async () => {
    const neither = "00000000-0000-4000-8000-00000000beef";
    // The worker refuses to start: the live namespace does not have the bound UID.
    await expect(runWorker(neither)).rejects.toThrow(StartupRefusedError);
    await expect(runWorker(neither)).rejects.toThrow("metadata.uid equals the bound uid");
    // A pass under that binding refuses the namespace permanently.
    const result = await driverFor(s.p, [], { namespaceId: s.id, uid: neither }).ensureNamespace({
      ...passInput(s.id),
      boundUid: newUid,
    });
    expect(result).toMatchObject({
      outcome: "failed",
      code: "KUBERNETES_OWNERSHIP_CONFLICT",
      retryable: false,
    });
    // The recorded binding is unchanged.
    expect(await getNamespace(s.db, s.id)).toMatchObject({
      status: "ready",
      kubernetesUid: newUid,
    });
  }, 300_000);
});
