import { describe, expect, it } from "vitest";
import { CI_VALUES, helmTemplate, renderChart, type RenderedObject } from "../../harness/helm.js";
import { deploymentOf } from "./rendered.js";

/**
 * Issue 19 item 3: by default the chart runs two API and two worker pods, each component with a
 * PodDisruptionBudget (minAvailable 1) and a soft pod anti-affinity by hostname — preferred, so
 * a one-node cluster still schedules both replicas. An operator's own affinity replaces the
 * default; a budget that would forbid every eviction is refused, naming the key. Issue 40: a
 * stopping API pod keeps serving through a preStop sleep while it leaves the Service's
 * endpoints, within a grace period that leaves `occ api` its shutdown deadline; both components
 * have a startupProbe, so a slow start is not restarted by the liveness probe.
 */
const COMPONENTS = ["api", "worker"] as const;
type Component = (typeof COMPONENTS)[number];

interface Budget {
  readonly spec: { minAvailable: number; selector: { matchLabels: Record<string, string> } };
}
interface Probe {
  readonly httpGet: { path: string; port: string };
  readonly periodSeconds: number;
  readonly failureThreshold: number;
}
interface Scheduled {
  readonly spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        affinity?: Record<string, unknown>;
        terminationGracePeriodSeconds?: number;
        containers: {
          startupProbe?: Probe;
          livenessProbe?: Probe;
          lifecycle?: { preStop?: { sleep?: { seconds: number } } };
        }[];
      };
    };
  };
}

const budgetsOf = (objects: readonly RenderedObject[]) =>
  objects.filter((o) => o.kind === "PodDisruptionBudget") as (RenderedObject & Budget)[];

const deployment = (objects: readonly RenderedObject[], component: Component) =>
  deploymentOf(objects, component) as unknown as RenderedObject & Scheduled;

describe("high availability by default", () => {
  for (const [profile, valuesFiles] of [
    ["chart defaults", []],
    ["preprovisioned", [CI_VALUES.preprovisioned]],
  ] as const) {
    it(`${profile}: replicas 2, a budget of minAvailable 1 and soft anti-affinity per component`, async () => {
      const objects = await renderChart({ valuesFiles });
      const budgets = budgetsOf(objects);
      expect(budgets.map((b) => b.metadata.labels?.["app.kubernetes.io/component"]).sort()).toEqual(
        ["api", "worker"],
      );
      for (const component of COMPONENTS) {
        const d = deployment(objects, component);
        expect(d.spec.replicas).toBe(2);
        const budget = budgets.find(
          (b) => b.metadata.labels?.["app.kubernetes.io/component"] === component,
        );
        expect(budget?.spec.minAvailable).toBe(1);
        // The budget selects exactly this component's pods (the Deployment's own selector).
        expect(budget?.spec.selector.matchLabels).toEqual(d.spec.selector.matchLabels);
        expect(d.spec.template.spec.affinity).toEqual({
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 100,
                podAffinityTerm: {
                  topologyKey: "kubernetes.io/hostname",
                  labelSelector: { matchLabels: d.spec.selector.matchLabels },
                },
              },
            ],
          },
        });
        // Preferred only: nothing makes a second replica unschedulable on a single node.
        expect(JSON.stringify(d.spec.template.spec.affinity)).not.toContain("required");
        expect(d.spec.template.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
      }
    });
  }

  it("an operator's affinity replaces the default anti-affinity", async () => {
    const own = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: "pool", operator: "In", values: ["cp"] }] },
          ],
        },
      },
    };
    const objects = await renderChart({ values: { worker: { affinity: own } } });
    expect(deployment(objects, "worker").spec.template.spec.affinity).toEqual(own);
    expect(deployment(objects, "api").spec.template.spec.affinity).toHaveProperty(
      "podAntiAffinity",
    );
  });

  it("a budget can be disabled; one replica then renders without it", async () => {
    const objects = await renderChart({
      values: { api: { replicas: 1, podDisruptionBudget: { enabled: false, minAvailable: 1 } } },
    });
    expect(deployment(objects, "api").spec.replicas).toBe(1);
    expect(
      budgetsOf(objects).map((b) => b.metadata.labels?.["app.kubernetes.io/component"]),
    ).toEqual(["worker"]);
  });

  for (const component of COMPONENTS) {
    it(`${component}: minAvailable not below replicas is refused (every drain would hang)`, async () => {
      const run = await helmTemplate({ values: { [component]: { replicas: 1 } } });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(
        `${component}.podDisruptionBudget.minAvailable (1) must be below ${component}.replicas (1)`,
      );
      // Scaled to zero on purpose: no pods, nothing to protect, nothing refused.
      const zero = await helmTemplate({ values: { [component]: { replicas: 0 } } });
      expect(zero.stderr).toBe("");
      expect(zero.code).toBe(0);
    });
  }

  it("the schema refuses an unknown budget key and a minAvailable below 1", async () => {
    const unknown = await helmTemplate({
      values: { worker: { podDisruptionBudget: { enabled: true, minAvailable: 1, max: 2 } } },
    });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("max");
    const zero = await helmTemplate({
      values: { api: { podDisruptionBudget: { enabled: true, minAvailable: 0 } } },
    });
    expect(zero.code).not.toBe(0);
    expect(zero.stderr).toContain("minAvailable");
  });

  it("graceful stop: the API sleeps 5 s before SIGTERM within 30 s; both start under a startupProbe", async () => {
    const objects = await renderChart();
    const api = deployment(objects, "api").spec.template.spec;
    expect(api.terminationGracePeriodSeconds).toBe(30);
    expect(api.containers[0]?.lifecycle).toEqual({ preStop: { sleep: { seconds: 5 } } });
    for (const component of COMPONENTS) {
      const [container] = deployment(objects, component).spec.template.spec.containers;
      // The same endpoint as liveness: liveness starts once startup answered, up to 60 s.
      expect(container?.startupProbe).toEqual({
        httpGet: container?.livenessProbe?.httpGet,
        periodSeconds: 2,
        failureThreshold: 30,
      });
    }
    // The worker serves no traffic: no sleep, the default grace period (its stop takes < 10 s).
    expect(deployment(objects, "worker").spec.template.spec.containers[0]?.lifecycle).toBe(
      undefined,
    );
    const none = await renderChart({ values: { api: { preStopSleepSeconds: 0 } } });
    expect(deployment(none, "api").spec.template.spec.containers[0]?.lifecycle).toBe(undefined);
  });

  it("a grace period shorter than the preStop sleep + the 20 s shutdown deadline is refused", async () => {
    const run = await helmTemplate({
      values: { api: { preStopSleepSeconds: 15, terminationGracePeriodSeconds: 30 } },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      "api.terminationGracePeriodSeconds (30) must be at least api.preStopSleepSeconds (15) + 20",
    );
    const enough = await helmTemplate({
      values: { api: { preStopSleepSeconds: 15, terminationGracePeriodSeconds: 35 } },
    });
    expect(enough.code, enough.stderr).toBe(0);
  });
});
