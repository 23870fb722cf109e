import { randomBytes } from "node:crypto";
import { request as httpsRequest, type RequestOptions } from "node:https";
import {
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  NetworkingV1Api,
  RbacAuthorizationV1Api,
} from "@kubernetes/client-node";
import { inject } from "vitest";
import type { ClusterIdentity } from "../../src/devcluster/identities.js";
import { isKubeError, type KubeApiError } from "../../src/drivers/kubernetes/client/index.js";

/** Typed API clients acting as one of the cluster's static identities. */
export interface KubeClients {
  readonly kc: KubeConfig;
  readonly objects: KubernetesObjectApi;
  readonly core: CoreV1Api;
  readonly rbac: RbacAuthorizationV1Api;
  readonly networking: NetworkingV1Api;
}

export function kubeAs(identity: ClusterIdentity): KubeClients {
  const kc = new KubeConfig();
  kc.loadFromFile(inject("env").kubeconfigs[identity]);
  return {
    kc,
    objects: KubernetesObjectApi.makeApiClient(kc),
    core: kc.makeApiClient(CoreV1Api),
    rbac: kc.makeApiClient(RbacAuthorizationV1Api),
    networking: kc.makeApiClient(NetworkingV1Api),
  };
}

/**
 * A DNS-1123 name unique to this test run, so tests sharing one cluster never see each
 * other's objects.
 */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString("hex")}`;
}

/** Creates a namespace named {@link uniqueName}(`prefix`) as `clients`; its name. */
export async function freshNamespace(clients: KubeClients, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  await clients.core.createNamespace({ body: { metadata: { name } } });
  return name;
}

/** The HTTP status of a rejected client-node call, or undefined when it was something else. */
export function statusOf(err: unknown): number | undefined {
  if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "number") {
    return err.code;
  }
  return undefined;
}

/** What `call` was rejected with; fails the test if it succeeded. */
export async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (err) {
    return err;
  }
  throw new Error("expected the Kubernetes API to refuse the request, but it succeeded");
}

/** Resolves with the status code a call was refused with; fails the test if it succeeded. */
export async function refusedWith(call: Promise<unknown>): Promise<number | undefined> {
  return statusOf(await rejectionOf(call));
}

/** The product object client's refusal of `call`; rethrows any other error. */
export async function kubeFailure(call: Promise<unknown>): Promise<KubeApiError> {
  const err = await rejectionOf(call);
  if (isKubeError(err)) return err;
  throw err;
}

/**
 * Polls until `probe` returns true or `timeoutMs` passes. `what` may be a function, called
 * only on timeout, so that the failure can describe the last value the probe saw.
 */
export async function eventually(
  what: string | (() => string),
  probe: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) {
      const described = typeof what === "string" ? what : what();
      throw new Error(`timed out after ${timeoutMs} ms waiting: ${described}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** One HTTPS request (with `payload` as its body, if any): the status and the body as text. */
export function httpsText(
  url: URL,
  opts: RequestOptions,
  payload?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") });
      });
    });
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** `httpsText` for a GET that must answer 200: the body, or an error naming status and body. */
async function httpsOk(url: URL, opts: RequestOptions): Promise<string> {
  const { status, text } = await httpsText(url, opts);
  if (status !== 200) throw new Error(`GET ${url.pathname}${url.search}: ${status} ${text}`);
  return text;
}

/**
 * GETs `path` as raw JSON, exactly as the API server sent it (client-node's typed models would
 * turn an absent key into an `undefined` property and hide the server's defaulting).
 */
export async function rawGet(clients: KubeClients, path: string): Promise<unknown> {
  const cluster = clients.kc.getCurrentCluster();
  if (cluster === null) throw new Error("kubeconfig has no current cluster");
  const opts: RequestOptions = { method: "GET", headers: { accept: "application/json" } };
  await clients.kc.applyToHTTPSOptions(opts);
  return JSON.parse(await httpsOk(new URL(path, cluster.server), opts));
}

/** kube-apiserver's own `/metrics` (Prometheus text), read as the cluster administrator. */
export async function apiServerMetrics(): Promise<string> {
  const env = inject("env");
  return httpsOk(new URL("/metrics", env.server), {
    ca: env.caPem,
    headers: { authorization: `Bearer ${env.tokens.admin}` },
  });
}

/**
 * The sum of every sample of `name` in Prometheus text whose labels include all of `labels`
 * (e.g. `seriesSum(text, "apiserver_request_total", { verb: "POST" })`); 0 when none.
 */
export function seriesSum(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!(line.startsWith(`${name}{`) || line.startsWith(`${name} `))) continue;
    const brace = line.indexOf("}");
    const found = Object.fromEntries(
      [...line.slice(0, Math.max(brace, 0)).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [
        m[1] ?? "",
        m[2] ?? "",
      ]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) {
      const raw = line.slice(line.lastIndexOf(" ") + 1);
      sum += raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw);
    }
  }
  return sum;
}
