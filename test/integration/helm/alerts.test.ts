/**
 * The chart's monitoring objects (issue 39 §4): rendered by the real helm only when the cluster
 * serves monitoring.coreos.com/v1 or a value says so; every alert of its PrometheusRule is
 * evaluated by the real `promtool test rules` against input series, firing and not firing;
 * and every metric the rules name is one OCC's processes register.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { validateInstallationConfig } from "../../../src/config/installation-config.js";
import { registerControlPlaneMetrics } from "../../../src/main/metrics.js";
import { workerQueues } from "../../../src/work/queues.js";
import { newNamespaceId } from "../../../src/domain/index.js";
import { insertNamespace } from "../../../src/store/namespaces.js";
import { recordWorkerHeartbeat } from "../../../src/store/worker-reports.js";
import { migratedDatabaseForFile } from "../../harness/db.js";
import { seriesSum } from "../../harness/kube.js";
import {
  CHART_DIR,
  KUBE_VERSION,
  parseManifests,
  renderChart,
  runHelm,
} from "../../harness/helm.js";

const database = await migratedDatabaseForFile();

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
}
interface RuleGroup {
  readonly name: string;
  readonly rules: Rule[];
}

async function renderedRules(values: Record<string, unknown> = {}): Promise<RuleGroup[]> {
  const objects = await renderChart({ values: { monitoring: { enabled: true, ...values } } });
  const rule = objects.find((o) => o.kind === "PrometheusRule") as unknown as
    { spec: { groups: RuleGroup[] } } | undefined;
  if (rule === undefined) throw new Error("no PrometheusRule rendered");
  return rule.spec.groups;
}

/** One alert's case: input series, and when it must (or must not) be firing. */
interface AlertCase {
  readonly alert: string;
  readonly series: Record<string, string>;
  readonly at: string;
  /** The labels of each firing alert beyond the rule's own (none: must not fire). */
  readonly firing: Record<string, string>[];
}

const CASES: AlertCase[] = [
  // Ages grow 60 s a minute from 0: over 15 minutes after 15 minutes.
  {
    alert: "OccTenantDegraded",
    series: { 'occ_namespace_status_oldest_age_seconds{status="degraded",job="api"}': "0+60x30" },
    at: "20m",
    firing: [{}],
  },
  {
    alert: "OccTenantDegraded",
    series: { 'occ_namespace_status_oldest_age_seconds{status="degraded",job="api"}': "0+60x30" },
    at: "10m",
    firing: [],
  },
  {
    alert: "OccTenantDegraded",
    series: {
      'occ_namespace_status_oldest_age_seconds{status="provisioning",job="api"}': "0+60x30",
    },
    at: "20m",
    firing: [],
  },
  {
    alert: "OccTenantPending",
    series: {
      'occ_namespace_status_oldest_age_seconds{status="provisioning",job="api"}': "0+60x30",
    },
    at: "20m",
    firing: [{}],
  },
  {
    alert: "OccTenantPending",
    series: { 'occ_namespace_status_oldest_age_seconds{status="provisioning",job="api"}': "0x30" },
    at: "20m",
    firing: [],
  },
  {
    alert: "OccWorkQueueStalled",
    series: {
      'occ_work_queue_oldest_ready_age_seconds{kind="namespace.ensure",job="api"}': "0+60x20",
      'occ_work_queue_oldest_ready_age_seconds{kind="agent.deploy",job="api"}': "0x20",
    },
    at: "15m",
    firing: [{ kind: "namespace.ensure" }],
  },
  {
    alert: "OccWorkQueueStalled",
    series: {
      'occ_work_queue_oldest_ready_age_seconds{kind="namespace.ensure",job="api"}': "0+60x20",
    },
    at: "5m",
    firing: [],
  },
  // Heartbeats every 10 s: the newest is at most ~10 s old while any worker runs.
  {
    alert: "OccWorkerHeartbeatMissing",
    series: { 'occ_worker_heartbeat_age_seconds{job="api"}': "5x5 70+60x5" },
    at: "8m",
    firing: [{}],
  },
  {
    alert: "OccWorkerHeartbeatMissing",
    series: {
      'occ_worker_heartbeat_age_seconds{job="api"}': "5x5 70+60x5",
      'occ_worker_heartbeat_age_seconds{job="worker"}': "8x10",
    },
    at: "8m",
    firing: [],
  },
  // One error restart a minute: 10 in 10 minutes. Restarts the server ends are normal.
  {
    alert: "OccWatchRestartsLooping",
    series: { 'occ_watch_restarts_total{kind="Namespace",reason="error",job="worker"}': "0+1x20" },
    at: "15m",
    firing: [{ kind: "Namespace" }],
  },
  {
    alert: "OccWatchRestartsLooping",
    series: {
      'occ_watch_restarts_total{kind="Namespace",reason="ended",job="worker"}': "0+1x20",
      'occ_watch_restarts_total{kind="Namespace",reason="error",job="worker"}': "0+0.2x20",
    },
    at: "15m",
    firing: [],
  },
  // Three repairs a minute: 45 in 15 minutes; one a minute: 15.
  {
    alert: "OccDriftRepairsHigh",
    series: { 'occ_drift_repairs_total{kind="NetworkPolicy",job="worker"}': "0+3x30" },
    at: "20m",
    firing: [{}],
  },
  {
    alert: "OccDriftRepairsHigh",
    series: { 'occ_drift_repairs_total{kind="NetworkPolicy",job="worker"}': "0+1x30" },
    at: "20m",
    firing: [],
  },
];

function runPromtool(args: readonly string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile("promtool", [...args], (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : Number(err.code ?? 1), out: stdout + stderr });
    });
  });
}

describe("the chart's monitoring objects", () => {
  it("render only with monitoring.coreos.com/v1 served (auto) or monitoring.enabled: true", async () => {
    const kinds = async (args: readonly string[]) => {
      const run = await runHelm([
        "template",
        "occ",
        CHART_DIR,
        "--kube-version",
        KUBE_VERSION,
        ...args,
      ]);
      expect(run.code).toBe(0);
      return parseManifests(run.stdout)
        .map((o) => o.kind)
        .filter((k) => ["ServiceMonitor", "PodMonitor", "PrometheusRule"].includes(k))
        .sort();
    };
    const all = ["PodMonitor", "PrometheusRule", "ServiceMonitor"];
    expect(await kinds([])).toEqual([]);
    expect(await kinds(["--api-versions", "monitoring.coreos.com/v1"])).toEqual(all);
    expect(await kinds(["--set", "monitoring.enabled=true"])).toEqual(all);
    expect(
      await kinds([
        "--api-versions",
        "monitoring.coreos.com/v1",
        "--set",
        "monitoring.enabled=false",
      ]),
    ).toEqual([]);
  });

  it("promtool test rules: each alert fires on its series and stays silent without them", async () => {
    const groups = await renderedRules();
    const rules = new Map(groups.flatMap((g) => g.rules).map((r) => [r.alert, r]));
    expect([...rules.keys()].sort()).toEqual([...new Set(CASES.map((c) => c.alert))].sort());
    const dir = await mkdtemp(join(tmpdir(), "occ-promtool-"));
    try {
      // JSON is YAML: promtool reads both files as written.
      await writeFile(join(dir, "rules.yaml"), JSON.stringify({ groups }));
      const tests = CASES.map((c) => {
        const rule = rules.get(c.alert);
        if (rule === undefined) throw new Error(`no alert ${c.alert}`);
        return {
          interval: "1m",
          input_series: Object.entries(c.series).map(([series, values]) => ({ series, values })),
          alert_rule_test: [
            {
              eval_time: c.at,
              alertname: c.alert,
              exp_alerts: c.firing.map((labels) => ({
                exp_labels: { ...rule.labels, ...labels },
                exp_annotations: Object.fromEntries(
                  Object.entries(rule.annotations).map(([k, v]) => [
                    k,
                    v.replace("{{ $labels.kind }}", labels.kind ?? ""),
                  ]),
                ),
              })),
            },
          ],
        };
      });
      await writeFile(
        join(dir, "tests.yaml"),
        JSON.stringify({ rule_files: ["rules.yaml"], evaluation_interval: "1m", tests }),
      );
      const check = await runPromtool(["check", "rules", join(dir, "rules.yaml")]);
      expect(check.out).toContain("SUCCESS: 6 rules found");
      const run = await runPromtool(["test", "rules", join(dir, "tests.yaml")]);
      expect(run.out).toContain("SUCCESS");
      expect(run.code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("every metric the rules name is one OCC's API and worker register", async () => {
    const names = new Set(
      (await renderedRules())
        .flatMap((g) => g.rules)
        .flatMap((r) => [...r.expr.matchAll(/\bocc_[a-z_]+\b/g)].map((m) => m[0])),
    );
    expect(names.size).toBeGreaterThanOrEqual(5);
    const config = validateInstallationConfig({}, "test");
    const registry = new Registry();
    registerControlPlaneMetrics(registry, database.db, workerQueues(config));
    const text = await registry.metrics();
    const registered = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    expect([...names].filter((n) => !registered.has(n))).toEqual([]);
  });

  it("the ages the alerts read come from the database: no worker is +Inf, a heartbeat is fresh, a new tenant waits in provisioning", async () => {
    const config = validateInstallationConfig({}, "test");
    const registry = new Registry();
    registerControlPlaneMetrics(registry, database.db, workerQueues(config));
    const read = async (name: string, labels: Record<string, string> = {}) =>
      seriesSum(await registry.metrics(), name, labels);
    expect(await read("occ_worker_heartbeat_age_seconds")).toBe(Number.POSITIVE_INFINITY);
    await recordWorkerHeartbeat(database.db, "alerts-test-worker", { starting: true });
    expect(await read("occ_worker_heartbeat_age_seconds")).toBeLessThan(5);
    const waiting = { status: "provisioning" };
    expect(await read("occ_namespace_status_oldest_age_seconds", waiting)).toBe(0);
    await insertNamespace(database.db, {
      id: newNamespaceId(),
      name: "alerts-test",
      placement: { mode: "managed" },
    });
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await read("occ_namespace_status_oldest_age_seconds", waiting)).toBeGreaterThan(1);
    expect(await read("occ_namespace_status_oldest_age_seconds", { status: "degraded" })).toBe(0);
  });
});
