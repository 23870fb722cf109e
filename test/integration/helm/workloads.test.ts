import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase } from "../../harness/db.js";
import { findObject, renderChart, type RenderedObject } from "../../harness/helm.js";
import { eventually } from "../../harness/kube.js";
import { spawnOcc, type OccProcess } from "../../harness/occ.js";
import { grantChartClusterRoles } from "../../harness/rbac.js";

/**
 * The rendered pods run the real `occ` commands: the Job's `occ migrate` and `occ bootstrap`,
 * then the API and the worker Deployments' containers, each with exactly the rendered arguments
 * and environment (the database URL that the Secret reference would supply, the configuration
 * file materialized where the ConfigMap volume puts it, the identity the chart binds). The probes
 * answer on the rendered paths and ports. (`node bin/occ.js` stands for the image's entrypoint,
 * `node /app/bin/occ.js`.)
 */
interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string } };
}
interface Probe {
  readonly httpGet: { readonly path: string; readonly port: string };
}
interface Container {
  readonly name: string;
  readonly args: readonly string[];
  readonly env: readonly EnvVar[];
  readonly ports?: readonly { name: string; containerPort: number }[];
  readonly volumeMounts: readonly { name: string; mountPath: string }[];
  readonly livenessProbe?: Probe;
  readonly readinessProbe?: Probe;
}
interface PodSpec {
  readonly containers: readonly Container[];
  readonly initContainers?: readonly Container[];
  readonly volumes: readonly { name: string; configMap?: { name: string } }[];
}
type Workload = RenderedObject & { spec: { template: { spec: PodSpec } } };

const children: OccProcess[] = [];
let root: string;
let databaseUrl: string;
let dropDatabase: () => Promise<void>;
let objects: RenderedObject[];
const ports = { api: 0, metrics: 0 };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      srv.close(() => {
        resolve(port);
      });
    });
  });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "occ-chart-run-"));
  const db = await createTestDatabase();
  databaseUrl = db.url;
  dropDatabase = () => db.drop();
  ports.api = await freePort();
  ports.metrics = await freePort();
  objects = await renderChart({
    values: { api: { port: ports.api }, worker: { metricsPort: ports.metrics } },
  });
  await grantChartClusterRoles();
});

afterAll(async () => {
  for (const child of children) await child.stop();
  await dropDatabase();
  await rm(root, { recursive: true, force: true });
});

/**
 * The process environment of `container`: literal values as rendered, the Secret reference
 * resolved to the test database, and OCC_CONFIG_PATH moved under `root` where the ConfigMap
 * the pod mounts at that path is written.
 */
async function environmentOf(spec: PodSpec, container: Container): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const e of container.env) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref !== undefined) {
      expect(e.name).toBe("OCC_DATABASE_URL");
      expect(ref).toEqual({ name: "occ-database", key: "url" });
      env[e.name] = databaseUrl;
    } else if (e.value !== undefined) env[e.name] = e.value;
    else throw new Error(`env ${e.name} has neither value nor a Secret reference`);
  }
  const configPath = env.OCC_CONFIG_PATH;
  if (configPath !== undefined) {
    const mount = container.volumeMounts.find((m) => configPath.startsWith(`${m.mountPath}/`));
    if (mount === undefined) throw new Error(`${configPath} is on no volume of ${container.name}`);
    const volume = spec.volumes.find((v) => v.name === mount.name);
    if (volume?.configMap === undefined) throw new Error(`${mount.name} is not a ConfigMap volume`);
    const map = findObject(objects, "ConfigMap", volume.configMap.name) as RenderedObject & {
      data: Record<string, string>;
    };
    const key = configPath.slice(mount.mountPath.length + 1);
    const text = map.data[key];
    if (text === undefined) throw new Error(`ConfigMap ${volume.configMap.name} has no ${key}`);
    const local = join(root, configPath);
    await mkdir(dirname(local), { recursive: true });
    await writeFile(local, text);
    env.OCC_CONFIG_PATH = local;
  }
  return env;
}

/** Starts `occ` as the pod would: only the rendered environment, in an empty home. */
function occ(args: readonly string[], env: Record<string, string>): OccProcess {
  const child = spawnOcc(args, { env: { HOME: root, ...env }, isolatedEnv: true, cwd: root });
  children.push(child);
  return child;
}

async function runToEnd(args: readonly string[], env: Record<string, string>): Promise<string> {
  const run = occ(args, env);
  const { status } = await run.exited;
  const text = run.output.join("\n");
  if (status !== 0) throw new Error(`occ ${args.join(" ")} exited ${status}:\n${text}`);
  return text;
}

async function httpStatus(port: number, path: string): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${port}${path}`)).status;
  } catch {
    return 0;
  }
}

function portOf(container: Container, name: string): number {
  const port = container.ports?.find((p) => p.name === name)?.containerPort;
  if (port === undefined) throw new Error(`${container.name} has no port ${name}`);
  return port;
}

describe("the rendered pods run the real occ commands", () => {
  it("the Job runs occ migrate then occ bootstrap; bootstrap again is idempotent (upgrade)", async () => {
    const job = objects.find((o) => o.kind === "Job") as Workload;
    const spec = job.spec.template.spec;
    const [migrate] = spec.initContainers ?? [];
    const [bootstrap] = spec.containers;
    if (migrate === undefined || bootstrap === undefined) throw new Error("Job containers");
    expect(migrate.args).toEqual(["migrate"]);
    expect(bootstrap.args).toEqual(["bootstrap"]);
    expect(await runToEnd(migrate.args, await environmentOf(spec, migrate))).toContain(
      "database is at the current schema",
    );
    const first = await runToEnd(bootstrap.args, await environmentOf(spec, bootstrap));
    expect(first).toMatch(/\S{20,}/);
    const again = await runToEnd(bootstrap.args, await environmentOf(spec, bootstrap));
    expect(again).toContain("already bootstrapped");
  });

  it("the API container serves /healthz and /readyz on its rendered port", async () => {
    const api = findObject(objects, "Deployment", "occ-openclaw-enterprise-api") as Workload;
    const spec = api.spec.template.spec;
    const [container] = spec.containers;
    if (container === undefined) throw new Error("no API container");
    expect(container.args).toEqual(["api", "--host", "0.0.0.0", "--port", String(ports.api)]);
    const env = await environmentOf(spec, container);
    expect(Object.keys(env).sort()).toEqual(["OCC_CONFIG_PATH", "OCC_DATABASE_URL"]);
    const run = occ(container.args, { ...env, KUBECONFIG: inject("env").kubeconfigs["occ-api"] });
    const port = portOf(container, "http");
    for (const probe of [container.livenessProbe, container.readinessProbe]) {
      if (probe === undefined) throw new Error("missing probe");
      expect(probe.httpGet.port).toBe("http");
      await eventually(
        `API ${probe.httpGet.path} answers 200 (${run.output.join("\n")})`,
        async () => {
          return (await httpStatus(port, probe.httpGet.path)) === 200;
        },
      );
    }
    expect([container.livenessProbe?.httpGet.path, container.readinessProbe?.httpGet.path]).toEqual(
      ["/healthz", "/readyz"],
    );
  });

  it("the worker container serves its probes (/healthz, /readyz) and /metrics on the rendered metrics port", async () => {
    const worker = findObject(objects, "Deployment", "occ-openclaw-enterprise-worker") as Workload;
    const spec = worker.spec.template.spec;
    const [container] = spec.containers;
    if (container === undefined) throw new Error("no worker container");
    expect(container.args).toEqual([
      "worker",
      "--metrics-host",
      "0.0.0.0",
      "--metrics-port",
      String(ports.metrics),
    ]);
    const env = await environmentOf(spec, container);
    const run = occ(container.args, {
      ...env,
      KUBECONFIG: inject("env").kubeconfigs["occ-worker"],
    });
    const port = portOf(container, "metrics");
    const probes = [container.livenessProbe, container.readinessProbe].map(
      (p) => p?.httpGet.path ?? "(none)",
    );
    expect(probes).toEqual(["/healthz", "/readyz"]);
    for (const probe of probes) {
      await eventually(`worker ${probe} answers 200 (${run.output.join("\n")})`, async () => {
        return (await httpStatus(port, probe)) === 200;
      });
    }
    expect(await httpStatus(port, "/metrics")).toBe(200);
  });
});
