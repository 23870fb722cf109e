import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { newNamespaceId, type NamespaceId, type StringMap } from "../../../src/domain/index.js";
import { LABELS } from "../../../src/domain/placement/markers.js";
import {
  createObjectClient,
  loadKubeConfig,
  type KubeObjectLike,
  type ObjectClient,
} from "../../../src/drivers/kubernetes/client/index.js";
import { startWorkerWatches, type WorkerWatches } from "../../../src/main/worker-watches.js";
import { migrate } from "../../../src/store/migrate.js";
import { createTestDatabase } from "../../harness/db.js";
import { eventually, uniqueName } from "../../harness/kube.js";
import { grantChartClusterRoles } from "../../harness/rbac.js";
import { sleep } from "../../harness/time.js";

/**
 * The worker's watches against the real API server and PostgreSQL: the watch event of the
 * worker's own write queues no pass, while any change by someone else — including one right
 * after our write — still does (drift is never missed).
 */
const env = inject("env");
const config = validateInstallationConfig(
  { kubernetes: { kubeconfig: env.kubeconfigs["occ-worker"] } },
  "test",
);
/** Someone else: the operator, a controller, an attacker. */
const foreign = createObjectClient(loadKubeConfig(env.kubeconfigs.admin));
/** The worker's Driver client; admin identity (the test is about events, not RBAC). */
const driverInner = createObjectClient(loadKubeConfig(env.kubeconfigs.admin));
let t: Awaited<ReturnType<typeof createTestDatabase>>;
let watches: WorkerWatches;
const requested: NamespaceId[] = [];

beforeAll(async () => {
  await grantChartClusterRoles();
  t = await createTestDatabase();
  await migrate(t.db);
  watches = startWorkerWatches({
    db: t.db,
    config,
    binding: null,
    logger: pino({ level: "silent" }),
    requestPasses: (ids) => {
      requested.push(...ids);
      return Promise.resolve();
    },
  });
  // A namespace created before the Namespace watch runs arrives in its initial list, which
  // queues nothing (CI saw that race): start once the caches answer without a request.
  const probe = watches.wrap(driverInner);
  await eventually("the worker's watch caches are synced", async () => {
    const before = driverInner.counter.total();
    await probe.list("Namespace", { labelSelector: LABELS.namespace });
    await probe.list("NetworkPolicy", { namespace: "default" });
    return driverInner.counter.total() === before;
  });
});
afterAll(async () => {
  await watches.stop();
  foreign.close();
  driverInner.close();
  await t.drop();
});

const rv = (o: KubeObjectLike) =>
  (o.metadata as { resourceVersion?: string } | undefined)?.resourceVersion ?? "";

/** A tenant row and its labelled namespace; resolves once its creation queued a pass. */
async function tenant(): Promise<{ id: NamespaceId; ns: string }> {
  const id = newNamespaceId();
  const ns = uniqueName("own");
  await t.db.query("INSERT INTO namespaces (id, name, placement_mode) VALUES ($1, $2, 'managed')", [
    id,
    ns,
  ]);
  await foreign.create("Namespace", { metadata: { name: ns, labels: { [LABELS.namespace]: id } } });
  // The namespace was created by someone else: a pass is queued (this also shows the watches run).
  await eventually(`a pass for ${id} after the foreign create`, async () =>
    Promise.resolve(requested.includes(id)),
  );
  return { id, ns };
}

const policy = (ns: string, id: string, name: string) => ({
  metadata: { name, namespace: ns, labels: { [LABELS.namespace]: id } },
  spec: { podSelector: {}, policyTypes: ["Ingress"] },
});

/** Passes requested for `id` from now on. */
function passesFor(id: NamespaceId): () => number {
  const from = requested.length;
  return () => requested.slice(from).filter((r) => r === id).length;
}

/** Merges `labels` into NetworkPolicy `name` of `ns` as `client` (no resourceVersion precondition). */
function relabel(client: Pick<ObjectClient, "patch">, ns: string, name: string, labels: StringMap) {
  return client.patch(
    "NetworkPolicy",
    { name, namespace: ns },
    { metadata: { labels } },
    {
      type: "merge",
    },
  );
}

/** Runs `change` and waits for the pass of tenant `id` that its watch event queues. */
async function passAfter(id: NamespaceId, what: string, change: () => Promise<unknown>) {
  const passes = passesFor(id);
  await change();
  await eventually(`a pass after ${what}`, () => Promise.resolve(passes() >= 1));
}

/** Resolves once the watch cache holds `name` at `version` (its event has arrived). */
async function cached(
  client: ReturnType<WorkerWatches["wrap"]>,
  ns: string,
  name: string,
  version: string,
) {
  await eventually(`the cache holds ${ns}/${name}@${version}`, async () => {
    const before = driverInner.counter.total();
    const got = await client.find("NetworkPolicy", { name, namespace: ns });
    return driverInner.counter.total() === before && got !== undefined && rv(got) === version;
  });
}

describe("own-write echoes (issue 20, P1)", () => {
  it("the echo of our create and of our fenced update queues no pass", async () => {
    const { id, ns } = await tenant();
    const client = watches.wrap(driverInner);
    const passes = passesFor(id);
    const created = await client.create("NetworkPolicy", policy(ns, id, "default-deny"));
    await cached(client, ns, "default-deny", rv(created));
    const desired = policy(ns, id, "default-deny");
    const updated = await client.apply(
      "NetworkPolicy",
      {
        ...desired,
        metadata: { ...desired.metadata, resourceVersion: rv(created) },
        spec: { podSelector: {}, policyTypes: ["Ingress", "Egress"] },
      },
      { force: true },
    );
    expect(rv(updated)).not.toBe(rv(created));
    await cached(client, ns, "default-deny", rv(updated));
    await sleep(500); // ten times the batch delay: any pass would have been requested by now
    expect(passes()).toBe(0);
  });

  it("a foreign change right after our write still queues a pass", async () => {
    const { id, ns } = await tenant();
    const client = watches.wrap(driverInner);
    const passes = passesFor(id);
    const ours = await client.create("NetworkPolicy", policy(ns, id, "default-deny"));
    // Within the batch window of our own echo: someone widens the policy.
    const theirs = await foreign.patch(
      "NetworkPolicy",
      { name: "default-deny", namespace: ns },
      { spec: { podSelector: { matchLabels: { app: "x" } } } },
      { type: "merge" },
    );
    expect(rv(theirs)).not.toBe(rv(ours));
    await eventually("a pass after the foreign change", () => Promise.resolve(passes() >= 1));

    // And later, alone: a foreign policy beside ours, and a foreign edit of our object.
    await passAfter(id, "the foreign policy", () =>
      foreign.create("NetworkPolicy", policy(ns, id, "allow-all")),
    );
    await passAfter(id, "the foreign edit", () =>
      relabel(foreign, ns, "default-deny", { extra: "1" }),
    );
    await passAfter(id, "the foreign delete", () =>
      foreign.delete(
        "NetworkPolicy",
        { name: "default-deny", namespace: ns },
        { uid: (ours.metadata as { uid?: string }).uid ?? "" },
      ),
    );
  });

  it("an update without a precondition is not taken for ours: its event queues a pass", async () => {
    const { id, ns } = await tenant();
    const client = watches.wrap(driverInner);
    await client.create("NetworkPolicy", policy(ns, id, "p"));
    await sleep(300);
    await passAfter(id, "the unfenced patch", () => relabel(client, ns, "p", { note: "unfenced" }));
  });
});
