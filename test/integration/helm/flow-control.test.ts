/**
 * API Priority and Fairness (issue 39 §3): the chart's FlowSchema and PriorityLevelConfiguration
 * (flowcontrol.apiserver.k8s.io/v1), rendered by the real helm, applied to the real API server
 * (run with APF on, as every real cluster), put the worker's and the API's ServiceAccounts in
 * OCC's own priority level — read back from the API server's apiserver_flowcontrol_* metrics.
 */
import { afterAll, describe, expect, it } from "vitest";
import { renderChart, type RenderedObject } from "../../harness/helm.js";
import { apiServerMetrics, eventually, seriesSum, uniqueName } from "../../harness/kube.js";
import { collectionPath, rawRequest } from "./api-server.js";

const LEVEL = "openclaw-enterprise";
const releaseNamespace = uniqueName("apf");

const flowControl = (objects: readonly RenderedObject[]) =>
  objects.filter((o) => o.apiVersion === "flowcontrol.apiserver.k8s.io/v1");

/** Requests the API server dispatched in priority level `level` (and flow schema `schema`). */
async function dispatched(level: string, schema?: string): Promise<number> {
  return seriesSum(await apiServerMetrics(), "apiserver_flowcontrol_dispatched_requests_total", {
    priority_level: level,
    ...(schema !== undefined ? { flow_schema: schema } : {}),
  });
}

/** `count` LISTs of namespaces as the ServiceAccount `name` of the release (impersonated). */
async function listAs(name: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await rawRequest("GET", "/api/v1/namespaces?limit=1", undefined, {
      "Impersonate-User": `system:serviceaccount:${releaseNamespace}:${name}`,
      "Impersonate-Group": [
        "system:serviceaccounts",
        `system:serviceaccounts:${releaseNamespace}`,
        "system:authenticated",
      ],
    });
  }
}

const applied: RenderedObject[] = [];
afterAll(async () => {
  for (const obj of applied) {
    const { path } = await collectionPath(obj.apiVersion, obj.kind, undefined);
    await rawRequest("DELETE", `${path}/${obj.metadata.name}`);
  }
});

describe("the chart's API Priority and Fairness objects", () => {
  it("render by default for the worker's and the API's ServiceAccounts, and not when disabled", async () => {
    const objects = flowControl(await renderChart({ namespace: releaseNamespace }));
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      `FlowSchema/${LEVEL}`,
      `PriorityLevelConfiguration/${LEVEL}`,
    ]);
    const schema = objects.find((o) => o.kind === "FlowSchema") as unknown as {
      spec: {
        priorityLevelConfiguration: { name: string };
        matchingPrecedence: number;
        rules: { subjects: { serviceAccount: { name: string; namespace: string } }[] }[];
      };
    };
    expect(schema.spec.priorityLevelConfiguration.name).toBe(LEVEL);
    expect(schema.spec.matchingPrecedence).toBeLessThan(9000);
    expect(schema.spec.rules[0]?.subjects.map((s) => s.serviceAccount)).toEqual([
      { name: "occ-worker", namespace: releaseNamespace },
      { name: "occ-api", namespace: releaseNamespace },
    ]);
    const shares = flowControl(
      await renderChart({
        namespace: releaseNamespace,
        values: { apiPriorityAndFairness: { nominalConcurrencyShares: 7 } },
      }),
    ).find((o) => o.kind === "PriorityLevelConfiguration") as unknown as {
      spec: { limited: { nominalConcurrencyShares: number } };
    };
    expect(shares.spec.limited.nominalConcurrencyShares).toBe(7);
    const off = await renderChart({
      namespace: releaseNamespace,
      values: { apiPriorityAndFairness: { enabled: false } },
    });
    expect(flowControl(off)).toEqual([]);
  });

  it("applied to the API server, the worker's and the API's requests are dispatched in OCC's own priority level, others' are not", async () => {
    const objects = flowControl(await renderChart({ namespace: releaseNamespace }));
    // The level first: a FlowSchema naming a level that does not exist yet matches nothing.
    const ordered = [
      ...objects.filter((o) => o.kind === "PriorityLevelConfiguration"),
      ...objects.filter((o) => o.kind === "FlowSchema"),
    ];
    for (const obj of ordered) {
      const { path } = await collectionPath(obj.apiVersion, obj.kind, undefined);
      const res = await rawRequest("POST", path, obj);
      expect([201, 409]).toContain(res.status);
      applied.push(obj);
    }
    // The API server's APF controller picks the new configuration up asynchronously.
    await eventually(`requests of occ-worker dispatched in ${LEVEL}`, async () => {
      await listAs("occ-worker", 1);
      return (await dispatched(LEVEL, LEVEL)) > 0;
    });
    const before = await dispatched(LEVEL, LEVEL);
    await listAs("occ-worker", 10);
    await listAs("occ-api", 10);
    expect((await dispatched(LEVEL, LEVEL)) - before).toBeGreaterThanOrEqual(20);

    // Another ServiceAccount of the same namespace stays in the built-in level for them.
    const ours = await dispatched(LEVEL);
    const othersBefore = await dispatched("workload-low", "service-accounts");
    await listAs("someone-else", 10);
    expect(await dispatched(LEVEL)).toBe(ours);
    expect(
      (await dispatched("workload-low", "service-accounts")) - othersBefore,
    ).toBeGreaterThanOrEqual(10);
  });
});
