import { mkdtemp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import { CHART_DIR, HELM } from "../helm.js";
import { sqlOnce } from "../postgres.js";
import type { DeployedEnvironment } from "./environment.js";
import { eventually, kubectl, kubectlOk, runCommand, type CommandRun } from "./kubectl.js";

/** The chart's object names for release `release` (`occ.fullname`). */
export function chartNames(release: string) {
  const full = release.includes("openclaw-enterprise") ? release : `${release}-openclaw-enterprise`;
  return {
    api: `${full}-api`,
    worker: `${full}-worker`,
    init: `${full}-init`,
    config: `${full}-config`,
  };
}

/** helm against the node's cluster as the administrator. */
export function helm(env: DeployedEnvironment, args: readonly string[]): Promise<CommandRun> {
  return runCommand(HELM, ["--kubeconfig", env.kubeconfig, ...args], { HELM_NO_PLUGINS: "1" });
}

export async function helmOk(env: DeployedEnvironment, args: readonly string[]): Promise<string> {
  const r = await helm(env, args);
  if (r.code !== 0) throw new Error(`helm ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** A fresh database on the run's PostgreSQL: its URL from the tests and from the pods. */
export async function createDatabase(
  env: DeployedEnvironment,
  name: string,
): Promise<{ url: string; urlForPods: string }> {
  await sqlOnce(env.databaseAdminUrl, `CREATE DATABASE ${name}`);
  const rename = (u: string): string => {
    const url = new URL(u);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return { url: rename(env.databaseAdminUrl), urlForPods: rename(env.databaseUrlForPods) };
}

/**
 * A release namespace that enforces `restricted` Pod Security (so every pod of the chart must
 * pass it to be admitted) and holds the database Secret the chart reads.
 */
export async function prepareReleaseNamespace(
  env: DeployedEnvironment,
  namespace: string,
  databaseUrl: string,
): Promise<void> {
  const manifest = {
    apiVersion: "v1",
    kind: "List",
    items: [
      {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: {
          name: namespace,
          labels: {
            "pod-security.kubernetes.io/enforce": "restricted",
            "pod-security.kubernetes.io/enforce-version": "latest",
          },
        },
      },
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "occ-database", namespace },
        stringData: { url: databaseUrl },
      },
    ],
  };
  await kubectlOk(env.kubeconfig, ["apply", "-f", "-"], JSON.stringify(manifest));
}

/** The values that fit this node: the imported image, the run's database and API server. */
export function nodeValues(env: DeployedEnvironment, tag?: string): Record<string, unknown> {
  const [repository, imageTag] = env.image.split(":");
  return {
    image: { repository, tag: tag ?? imageTag, pullPolicy: "Never" },
    // The node enforces NetworkPolicies (kube-router): the chart's egress must name the
    // database's and the API server's real ports on the node's address.
    database: {
      existingSecret: { name: "occ-database", key: "url" },
      egress: {
        port: Number(new URL(env.databaseUrlForPods).port),
        peers: [{ cidr: `${env.nodeAddress}/32` }],
      },
    },
    kubernetesApi: {
      cidrs: [`${env.nodeAddress}/32`],
      ports: [443, Number(new URL(env.server).port)],
    },
  };
}

/** Writes `values` as a values file under the run folder and returns its path. */
export async function valuesFile(env: DeployedEnvironment, values: object): Promise<string> {
  const dir = await mkdtemp(join(env.runDir, "values-"));
  const file = join(dir, "values.yaml");
  await writeFile(file, stringify(values));
  return file;
}

export { CHART_DIR };

/** Everything that helps understand a failed install: pods, events, the chart pods' logs. */
export async function describeRelease(env: DeployedEnvironment, namespace: string) {
  const logs = (component: string, extra: readonly string[]) =>
    kubectl(env.kubeconfig, [
      "-n",
      namespace,
      "logs",
      "-l",
      `app.kubernetes.io/component=${component}`,
      "--tail=40",
      ...extra,
    ]);
  const parts = await Promise.all([
    kubectl(env.kubeconfig, ["-n", namespace, "get", "all,events", "-o", "wide"]),
    logs("worker", []),
    logs("worker", ["--previous"]),
    logs("api", []),
  ]);
  return parts.map((p) => p.stdout + p.stderr).join("\n");
}

/** The administrator's API key the init Job's `occ bootstrap` printed. */
export async function bootstrapKey(env: DeployedEnvironment, namespace: string, job: string) {
  const logs = await kubectlOk(env.kubeconfig, ["-n", namespace, "logs", `job/${job}`]);
  const key = /^(occ_[0-9a-f]{16}_\S+)$/m.exec(logs)?.[1];
  if (key === undefined) throw new Error(`no API key in the init Job's log:\n${logs}`);
  return key;
}

/** The API through its Service's ClusterIP (kube-proxy's rules, as a pod would reach it). */
export async function apiServiceUrl(env: DeployedEnvironment, namespace: string, service: string) {
  const [ip, port] = (
    await kubectlOk(env.kubeconfig, [
      "-n",
      namespace,
      "get",
      "service",
      service,
      "-o",
      "jsonpath={.spec.clusterIP} {.spec.ports[0].port}",
    ])
  ).split(" ");
  return `http://${ip ?? ""}:${port ?? ""}`;
}

export interface Api {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

/** Connection errors raised before a request was sent: retrying cannot repeat a write. */
const NOT_SENT = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function notSent(err: unknown): boolean {
  const cause = err instanceof Error ? err.cause : undefined;
  return (
    typeof cause === "object" &&
    cause !== null &&
    "code" in cause &&
    typeof cause.code === "string" &&
    NOT_SENT.has(cause.code)
  );
}

/**
 * A client of the API through its Service, as an operator's tooling would be: a request that
 * could not even connect is retried for up to 60 s (after a rollout, kube-proxy may still send
 * a connection to the old pod's address for a moment — EHOSTUNREACH), anything else is not.
 */
export function apiClient(url: string, key: string): Api {
  const once = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    async call(method, path, body) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          return await once(method, path, body);
        } catch (err) {
          if (!notSent(err) || Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    },
  };
}

export interface NamespaceView {
  readonly id: string;
  readonly status: string;
  readonly placement?: {
    readonly mode: string;
    readonly kubernetesNamespace: string | null;
    readonly uid: string | null;
  };
  readonly statusReason?: { code: string; message: string } | null;
}

/** Polls the API until Namespace `id` is `ready` (its last view in the error otherwise). */
export async function untilReady(
  api: Api,
  id: string,
  timeoutMs: number,
  why?: () => Promise<string>,
) {
  let last: unknown;
  return eventually(
    `Namespace ${id} ready`,
    async () => {
      const res = await api.call("GET", `/namespaces/${id}`);
      last = res.body;
      const view = (res.body as { data?: NamespaceView }).data;
      return view?.status === "ready" ? view : undefined;
    },
    timeoutMs,
    async () => `last seen ${JSON.stringify(last)}\n${why === undefined ? "" : await why()}`,
  );
}

/** The names of the Ready pods of one component of the release. */
export async function readyPods(env: DeployedEnvironment, namespace: string, component: string) {
  const out = await kubectlOk(env.kubeconfig, [
    "-n",
    namespace,
    "get",
    "pods",
    "-l",
    `app.kubernetes.io/component=${component}`,
    "-o",
    'jsonpath={range .items[*]}{.metadata.name} {.metadata.deletionTimestamp} {.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
  ]);
  return out
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length === 2 && f[1] === "True")
    .map((f) => f[0] ?? "");
}

/** `ctr` against the node's containerd, in the kubelet's `k8s.io` namespace; fails with its stderr. */
export async function ctrOk(env: DeployedEnvironment, args: readonly string[]): Promise<string> {
  const r = await runCommand("ctr", [
    "--address",
    env.containerdSocket,
    "--namespace",
    "k8s.io",
    ...args,
  ]);
  if (r.code !== 0) throw new Error(`ctr ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

/** `<image> <updated>/<ready>` of each Deployment in `namespace`, one line each. */
export async function deploymentImages(env: DeployedEnvironment, namespace: string) {
  const out = await kubectlOk(env.kubeconfig, [
    "-n",
    namespace,
    "get",
    "deploy",
    "-o",
    'jsonpath={range .items[*]}{.spec.template.spec.containers[0].image} {.status.updatedReplicas}/{.status.readyReplicas}{"\\n"}{end}',
  ]);
  return out.trim().split("\n");
}

/**
 * After a file's steps, failed or not: the release goes (one release per cluster; the next
 * file installs), with the init Job it keeps.
 */
export async function uninstallRelease(
  env: DeployedEnvironment,
  release: string,
  namespace: string,
) {
  await helm(env, ["uninstall", release, "-n", namespace, "--wait", "--timeout", "120s"]);
  await kubectl(env.kubeconfig, [
    "-n",
    namespace,
    "delete",
    "job",
    "-l",
    "app.kubernetes.io/component=init",
  ]);
}
