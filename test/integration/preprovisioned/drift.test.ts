/**
 * The preprovisioned bound namespace over time (lifecycle.md §3, preprovisioned.md §3), through
 * the worker process (`startWorkerProcess`, what `occ worker` runs) as the chart-rendered
 * identities: the profile may not list or watch, so the worker re-reads the one namespace every
 * `worker.pollSeconds` (1 s here). A removed marker, a changed sealed NetworkPolicy and a
 * changed operator resource each leave `ready` for `degraded` with the seed's reason; once the
 * operator undoes it the Namespace is `ready` again under the same ID. OCC writes nothing to the
 * operator's namespace or their objects meanwhile (their resourceVersions are unchanged), and
 * every transition is an Event the worker recorded in the namespace.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABELS, PREPROVISIONED_MESSAGES } from "../../../src/domain/index.js";
import { getNamespace } from "../../../src/store/namespaces.js";
import type { RunningWorker } from "../../../src/worker/worker.js";
import { eventually } from "../../harness/kube.js";
import { admin } from "../../harness/preprovisioned.js";
import { DECLARED_POLICY, startBoundWorker } from "./fixtures.js";
import { gatewayStackForFile } from "./file-stacks.js";
import { ORPHAN_EVENT_REASON } from "../../../src/domain/placement/orphans.js";

const POLL = { worker: { pollSeconds: 1 } };
const s = gatewayStackForFile(POLL);
let worker: RunningWorker | undefined;

beforeAll(async () => {
  worker = await startBoundWorker(s.db, s.p, { endpoint: s.gw.endpoint, overrides: POLL });
  await eventually(
    "ready",
    async () => (await getNamespace(s.db, s.id))?.status === "ready",
    60_000,
  );
}, 180_000);

afterAll(async () => {
  await worker?.stop();
});

/** The resourceVersions of the namespace and of every object the operator applied in it. */
async function operatorVersions(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const ns = await admin().get("Namespace", { name: s.p.name });
  out["Namespace"] = ns.metadata.resourceVersion ?? "";
  for (const [kind, name] of [
    ["NetworkPolicy", DECLARED_POLICY.metadata.name],
    ["ServiceAccount", "openshell-sandbox"],
    ["Role", "openshell-sandbox"],
    ["RoleBinding", "openshell-sandbox"],
  ] as const) {
    const o = await admin().get(kind, { name, namespace: s.p.name });
    out[`${kind}/${name}`] = o.metadata.resourceVersion ?? "";
  }
  return out;
}

/** The reasons of the Events the worker recorded in the namespace, oldest first. */
async function eventReasons(): Promise<string[]> {
  const events = await admin().list("Event", { namespace: s.p.name });
  return (
    events
      // Other test files' workers share the cluster, and to them this tenant's namespace is an
      // orphan (its ID is not in their databases): their best-effort orphan Event is not ours.
      .filter((e) => e.source?.component === "occ-worker" && e.reason !== ORPHAN_EVENT_REASON)
      .sort((a, b) => (a.firstTimestamp ?? "").localeCompare(b.firstTimestamp ?? ""))
      .map((e) => e.reason ?? "")
  );
}

/**
 * One drift: `change` as the operator → degraded with the profile's code and `message`, the
 * Event recorded, nothing of the operator's written by OCC → `undo` → ready under the same ID,
 * the READY Event recorded, still nothing written by OCC.
 */
async function driftAndRecover(
  what: string,
  change: () => Promise<unknown>,
  undo: () => Promise<unknown>,
  message: string,
): Promise<void> {
  const events = await eventReasons();
  await change();
  const changed = await operatorVersions();
  await eventually(
    `${what}: degraded`,
    async () => (await getNamespace(s.db, s.id))?.status === "degraded",
    60_000,
  );
  const degraded = await getNamespace(s.db, s.id);
  expect(degraded?.statusCode).toBe("KUBERNETES_OWNERSHIP_CONFLICT");
  expect(degraded?.statusReason).toContain(message);
  expect(degraded?.kubernetesUid).toBe(s.p.binding.uid);
  await eventually(
    `${what}: Event`,
    async () =>
      (await eventReasons()).filter((r) => r === "KUBERNETES_OWNERSHIP_CONFLICT").length >
      events.filter((r) => r === "KUBERNETES_OWNERSHIP_CONFLICT").length,
  );
  // Several re-reads later OCC still wrote nothing of the operator's.
  await new Promise((r) => setTimeout(r, 3_000));
  expect(await operatorVersions()).toEqual(changed);

  await undo();
  const undone = await operatorVersions();
  await eventually(
    `${what}: ready again`,
    async () => (await getNamespace(s.db, s.id))?.status === "ready",
    60_000,
  );
  const back = await getNamespace(s.db, s.id);
  expect(back).toMatchObject({
    id: s.id,
    status: "ready",
    statusCode: null,
    kubernetesUid: s.p.binding.uid,
  });
  await eventually(
    `${what}: READY Event`,
    async () =>
      (await eventReasons()).filter((r) => r === "READY").length >
      events.filter((r) => r === "READY").length,
  );
  expect(await operatorVersions()).toEqual(undone);
}

describe("the preprovisioned namespace re-verified by the worker process", () => {
  it("a tenant marker removed → degraded; restored → ready under the same ID", async () => {
    await driftAndRecover(
      "marker removed",
      () =>
        admin().patch(
          "Namespace",
          { name: s.p.name },
          { metadata: { labels: { [LABELS.namespace]: null } } },
          { type: "merge" },
        ),
      () =>
        admin().patch(
          "Namespace",
          { name: s.p.name },
          { metadata: { labels: { [LABELS.namespace]: s.id } } },
          { type: "merge" },
        ),
      PREPROVISIONED_MESSAGES.namespaceMismatch,
    );
  });

  it("a sealed NetworkPolicy changed → degraded; re-applied → ready under the same ID", async () => {
    const ref = { name: DECLARED_POLICY.metadata.name, namespace: s.p.name };
    const port = (value: number) => ({
      spec: { egress: [{ ...DECLARED_POLICY.spec.egress[0], ports: [{ port: value }] }] },
    });
    await driftAndRecover(
      "sealed policy changed",
      () => admin().patch("NetworkPolicy", ref, port(9999), { type: "merge" }),
      () => admin().patch("NetworkPolicy", ref, port(8080), { type: "merge" }),
      PREPROVISIONED_MESSAGES.sealedPolicies,
    );
  });

  it("an operator resource changed → degraded; re-applied → ready under the same ID", async () => {
    const ref = { name: "openshell-sandbox", namespace: s.p.name };
    const rules = (verbs: string[]) => ({
      rules: [{ apiGroups: [""], resources: ["pods"], verbs }],
    });
    await driftAndRecover(
      "operator Role changed",
      () => admin().patch("Role", ref, rules(["get", "list", "watch"]), { type: "merge" }),
      () => admin().patch("Role", ref, rules(["get", "list"]), { type: "merge" }),
      PREPROVISIONED_MESSAGES.operatorResource,
    );
  });
});
