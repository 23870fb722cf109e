/**
 * Upgrade from the previous release on a real node (docs/operations.md, "Upgrade"): the chart
 * and image of the release deploy/previous-release names (built from its own tree by
 * tools/previous-release.sh) are installed; tenants of both placements, Configurations and an
 * Agent are made; work is left queued (workers scaled to zero) and in flight (an Agent rollout
 * and an external Namespace waiting for its grants); then `helm upgrade` to this tree's chart
 * and image while a client polls the API Service, a writer creates Namespaces and the tenants'
 * statuses are watched in PostgreSQL. Afterwards every queued item has completed exactly once
 * (work_items, audit events, the API server), and `helm rollback` returns to the previous
 * release, which serves and places work on the schema the upgrade migrated.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type pg from "pg";
import { currentManagedName, workloadNames } from "../../src/domain/index.js";
import {
  chartNames,
  CHART_DIR,
  ctrOk,
  describeRelease,
  helm,
  nodeValues,
  uninstallRelease,
  untilReady,
  valuesFile,
  type Api,
  type NamespaceView,
} from "../harness/node/chart.js";
import { eventually, kubectlOk } from "../harness/node/kubectl.js";
import {
  documentedBlock,
  runBlockAsync,
  shown,
  type DocBlock,
  type RunOptions,
} from "../harness/doc-blocks.js";
import { startProbe, summarize, type ProbeSample } from "../harness/node/rollout-probe.js";
import { previousRelease, type PreviousRelease } from "../harness/previous-release.js";
import "../harness/node/environment.js";
import {
  createNamespace,
  labelled,
  openReleaseDatabase,
  reachRelease,
  watchStatuses,
} from "./readback.js";
import {
  gatewayDeployments,
  grant,
  placedByImage,
  prepareExternal,
  report,
  rolledOutTo,
  transitionsTo,
  workStates,
} from "./upgrade-readback.js";

const env = inject("deployed");
const release = "occ";
const ns = "occ-upgrade";
const names = chartNames(release);
/** The longest a client may get no answer while a release rolls (connection refused, timeout). */
const UNANSWERED_BOUND_MS = 10_000;
let previous: PreviousRelease;
let db: pg.Client;
let api: Api;
let url = "";
let key = "";
let operator: RunOptions;
const why = () => describeRelease(env, ns);
const started = Date.now();

/** The chart values for the node, running image tag `tag`. */
function valuesFor(tag: string): Record<string, unknown> {
  return {
    ...nodeValues(env, tag),
    worker: { queue: { resyncSeconds: 30 } },
    // Agent pods from an image the node has (they wait for their volumes, never pulled).
    workloads: { gatewayImage: env.image, harnessImage: env.image },
  };
}
const tagOf = (image: string) => image.split(":")[1] ?? "";

/**
 * A documented block of docs/operations.md ("Upgrade") run as the operator, without blocking
 * the probes: the docs' release namespace, chart and values file filled in.
 */
async function operatorRuns(block: DocBlock, valuesPath = "", revision = ""): Promise<string> {
  const results = await runBlockAsync(block, {
    ...operator,
    fill: {
      "deploy/helm/openclaw-enterprise": CHART_DIR,
      "openclaw-system": ns,
      "my-values.yaml": valuesPath,
      "<revision>": revision,
    },
  });
  for (const r of results) expect(r.code, `${shown(r)}\n${await why()}`).toBe(0);
  return results.map((r) => r.stdout).join("\n");
}

/** Until the API answers `/readyz` 200 through its Service (kube-proxy has the new pods). */
async function answering(): Promise<void> {
  await eventually(
    "the API answers /readyz through its Service",
    async () => {
      const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) }).catch(
        () => undefined,
      );
      return r?.status === 200 ? true : undefined;
    },
    90_000,
    why,
  );
}

beforeAll(async () => {
  previous = previousRelease();
  const importing = Date.now();
  await ctrOk(env, ["images", "import", previous.archive]);
  console.log(`[upgrade] ${previous.tag} imported in ${Date.now() - importing} ms`);
  db = await openReleaseDatabase(env, ns, "occ_upgrade");
});

afterAll(async () => {
  await uninstallRelease(env, release, ns);
  await db.end();
  console.log(`[upgrade] the upgrade test took ${Date.now() - started} ms`);
});

describe("upgrade from the previous release (deploy/previous-release) on a real node", () => {
  const tenants = { a: "", b: "", e1: "", e2: "", agent: "", revision: "" };
  const configurations: { id: string; namespace: string; values: object }[] = [];
  const queued: string[] = [];
  const rolledOut: string[] = [];

  it("helm install of the previous release's chart with its image", async () => {
    const t = Date.now();
    const install = await helm(env, [
      "install",
      release,
      previous.chart,
      "-n",
      ns,
      "-f",
      await valuesFile(env, valuesFor(tagOf(previous.tag))),
      "--wait",
      "--timeout",
      "240s",
    ]);
    expect(install.code, `${install.stderr}\n${await why()}`).toBe(0);
    console.log(`[upgrade] previous release installed in ${Date.now() - t} ms`);
    await rolledOutTo(env, ns, previous.tag);
    ({ key, url, api, operator } = await reachRelease(env, ns, names));
    await answering();
  });

  it("managed and external tenants, Configurations and an Agent on the previous release", async () => {
    tenants.a = await createNamespace(api, { name: "upgrade-a" });
    tenants.b = await createNamespace(api, { name: "upgrade-b" });
    await prepareExternal(env, ns, "upgrade-e1", true);
    await prepareExternal(env, ns, "upgrade-e2", false);
    tenants.e1 = await createNamespace(api, {
      name: "upgrade-e1",
      existingNamespace: "upgrade-e1",
    });
    // Waits for its RoleBindings across the upgrade: work the old workers keep retrying.
    tenants.e2 = await createNamespace(api, {
      name: "upgrade-e2",
      existingNamespace: "upgrade-e2",
    });
    for (const id of [tenants.a, tenants.b, tenants.e1]) await untilReady(api, id, 120_000, why);
    await eventually(
      `${tenants.e2} waits for its RoleBindings`,
      async () => {
        const view = (
          (await api.call("GET", `/namespaces/${tenants.e2}`)).body as {
            data?: NamespaceView;
          }
        ).data;
        return view?.statusReason?.code === "KUBERNETES_PERMISSION_PENDING" ? true : undefined;
      },
      120_000,
      why,
    );
    for (const id of [tenants.a, tenants.e1]) {
      const values = { model: `upgrade-${id.slice(-6)}`, limits: { turns: 3 } };
      const res = await api.call("POST", `/namespaces/${id}/configurations`, {
        kind: "agent",
        values,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      configurations.push({
        id: (res.body as { data: { id: string } }).data.id,
        namespace: id,
        values,
      });
    }
    const agent = await api.call("POST", `/namespaces/${tenants.a}/agents`, {
      name: "upgrade-agent",
      configurationId: configurations[0]?.id,
      executionMode: "embedded",
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    tenants.agent = (agent.body as { data: { id: string } }).data.id;
    // Its rollout never becomes available here (no volumes): in flight through the upgrade.
    const deploy = await api.call(
      "POST",
      `/namespaces/${tenants.a}/agents/${tenants.agent}/deploy`,
    );
    expect(deploy.status, JSON.stringify(deploy.body)).toBe(202);
    tenants.revision = (deploy.body as { data: { id: string } }).data.id;
    await eventually(
      "the Agent's gateway Deployment exists",
      async () =>
        (await gatewayDeployments(env, currentManagedName(tenants.a))) !== "" ? true : undefined,
      120_000,
      why,
    );
  });

  it("work left queued: the workers scaled to zero, Namespaces created and one deleted through the previous API", async () => {
    await kubectlOk(env.kubeconfig, ["-n", ns, "scale", "deploy", names.worker, "--replicas=0"]);
    await kubectlOk(env.kubeconfig, [
      "-n",
      ns,
      "wait",
      "--for=delete",
      "pod",
      "-l",
      "app.kubernetes.io/component=worker",
      "--timeout=120s",
    ]);
    for (const n of [1, 2, 3])
      queued.push(await createNamespace(api, { name: `upgrade-queued-${n}` }));
    expect((await api.call("DELETE", `/namespaces/${tenants.b}`)).status).toBe(202);
    for (const id of queued)
      expect(await workStates(db, `namespace:${id}:ready`)).toEqual(["queued"]);
    expect(await workStates(db, `namespace:${tenants.b}:deleted`)).toEqual(["queued"]);
  });

  it("helm upgrade to this tree's chart and image: the API answers throughout, no tenant leaves ready", async () => {
    const probe = startProbe(`${url}/namespaces/${tenants.a}`, key);
    const stopWatch = watchStatuses(db, [tenants.a, tenants.e1]);
    const writes: string[] = [];
    const writing = { on: true };
    const writer = (async () => {
      for (let i = 0; writing.on; i++) {
        const res = await api
          .call("POST", "/namespaces", { name: `upgrade-rollout-${i}` })
          .catch((err: unknown) => ({ status: 0, body: String(err) }));
        writes.push(String(res.status));
        if (res.status === 201) rolledOut.push((res.body as { data: NamespaceView }).data.id);
        await new Promise((r) => setTimeout(r, 2_000));
      }
    })();
    const t = Date.now();
    let samples: ProbeSample[] = [];
    let statuses: string[] = [];
    try {
      const log = await operatorRuns(
        documentedBlock("upgrade-helm"),
        await valuesFile(env, valuesFor(tagOf(env.image))),
      );
      console.log(`[upgrade] helm upgrade --wait took ${Date.now() - t} ms`);
      // The init Job ran this tree's `occ migrate` before the rollout.
      expect(log).toMatch(/database is at the current schema/);
      await answering();
    } finally {
      writing.on = false;
      await writer;
      samples = await probe.stop();
      statuses = await stopWatch();
      report("during helm upgrade", summarize(samples));
      console.log(`[upgrade] writes during the upgrade: ${writes.join(" ")}`);
    }
    const summary = summarize(samples);
    await rolledOutTo(env, ns, env.image);
    expect(summary.unexpected).toEqual([]);
    expect(summary.longestUnansweredMs).toBeLessThan(UNANSWERED_BOUND_MS);
    expect(writes.filter((w) => w !== "201" && w !== "503" && w !== "0")).toEqual([]);
    expect(statuses).toEqual([`${tenants.a} ready`, `${tenants.e1} ready`].sort());
  });

  it("the queued and in-flight work completes exactly once under the current release", async () => {
    // Created through the API during the rollout without an answer: found by name.
    const named = await db.query<{ id: string }>(
      "SELECT id FROM namespaces WHERE name LIKE 'upgrade-rollout-%'",
    );
    const placed = [...new Set([...queued, ...rolledOut, ...named.rows.map((r) => r.id)])];
    for (const id of placed) {
      await untilReady(api, id, 180_000, why);
      expect(await workStates(db, `namespace:${id}:ready`), id).toEqual(["succeeded"]);
      expect(await transitionsTo(db, id, "ready"), id).toBe(1);
      expect(await labelled(env, id), id).toEqual([`namespace/${currentManagedName(id)}`]);
      // Queued by the previous release's API, placed by this release's worker.
      expect(await placedByImage(env, ns, db, id), id).toBe(env.image);
    }
    console.log(
      `[upgrade] ${placed.length} Namespaces queued or created during the rollout, each placed once`,
    );
    await eventually(
      `${tenants.b} torn down`,
      async () =>
        (await api.call("GET", `/namespaces/${tenants.b}`)).status === 404 ? true : undefined,
      180_000,
      why,
    );
    expect(await workStates(db, `namespace:${tenants.b}:deleted`)).toEqual(["succeeded"]);
    expect(await labelled(env, tenants.b)).toEqual([]);
    // In flight: the external Namespace waiting for its grants, granted now.
    await grant(env, ns, "upgrade-e2");
    await untilReady(api, tenants.e2, 180_000, why);
    expect(await workStates(db, `namespace:${tenants.e2}:ready`)).toEqual(["succeeded"]);
    expect(await transitionsTo(db, tenants.e2, "ready")).toBe(1);
    // The Agent's rollout: one work item, one gateway Deployment.
    expect(
      await workStates(db, `agent:${tenants.agent}:revision:${tenants.revision}`),
    ).toHaveLength(1);
    const gateways = await gatewayDeployments(env, currentManagedName(tenants.a));
    expect(gateways).toBe(
      `deployment.apps/${workloadNames(tenants.agent, tenants.revision).gateway}`,
    );
    for (const c of configurations) {
      const read = await api.call("GET", `/namespaces/${c.namespace}/configurations/${c.id}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect((read.body as { data: { values: unknown } }).data.values).toEqual(c.values);
    }
  });

  it("helm rollback to the previous release: its pods ready, the API answering, every tenant ready", async () => {
    const probe = startProbe(`${url}/namespaces/${tenants.a}`, key);
    const t = Date.now();
    let samples: ProbeSample[] = [];
    try {
      const out = await operatorRuns(documentedBlock("upgrade-rollback"), "", "1");
      console.log(`[upgrade] helm rollback --wait took ${Date.now() - t} ms`);
      expect(out).toMatch(/Rollback was a success/);
      await answering();
    } finally {
      samples = await probe.stop();
      report("during helm rollback", summarize(samples));
    }
    const summary = summarize(samples);
    await rolledOutTo(env, ns, previous.tag);
    expect(summary.unexpected).toEqual([]);
    expect(summary.longestUnansweredMs).toBeLessThan(UNANSWERED_BOUND_MS);
    const rows = await db.query<{ status: string }>(
      "SELECT DISTINCT status FROM namespaces WHERE deleted_at IS NULL",
    );
    expect(rows.rows.map((r) => r.status)).toEqual(["ready"]);
    // The previous release places work on the schema the upgrade migrated.
    const after = await createNamespace(api, { name: "upgrade-after-rollback" });
    await untilReady(api, after, 180_000, why);
    expect(await placedByImage(env, ns, db, after)).toBe(previous.tag);
    for (const id of [tenants.a, tenants.e1, tenants.e2]) {
      const view = await untilReady(api, id, 60_000, why);
      expect(view.status).toBe("ready");
    }
  });
});
