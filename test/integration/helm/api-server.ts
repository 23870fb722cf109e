import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import type { RequestOptions } from "node:https";
import { join } from "node:path";
import { promisify } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import { inject } from "vitest";
import { parseAllDocuments } from "yaml";
import { eventually, httpsText } from "../../harness/kube.js";
import { REPO_ROOT, type RenderedObject } from "../../harness/helm.js";

/**
 * Raw HTTPS to the test API server as the administrator, for what the product's object client
 * does not cover (its kind table has no Job, Gateway, EnvoyProxy or CRD): server-side dry runs
 * of every rendered object and installing the CRDs the chart's objects need.
 */
export interface RawResponse {
  readonly status: number;
  readonly body: unknown;
}

function adminConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(inject("env").kubeconfigs.admin);
  return kc;
}

export async function rawRequest(
  method: string,
  path: string,
  body?: unknown,
  /** More headers, e.g. `Impersonate-User` to act as another identity. */
  headers: Readonly<Record<string, string | string[]>> = {},
): Promise<RawResponse> {
  const kc = adminConfig();
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error("kubeconfig has no current cluster");
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const opts: RequestOptions = {
    method,
    headers: {
      accept: "application/json",
      ...(payload === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
  };
  await kc.applyToHTTPSOptions(opts);
  const { status, text } = await httpsText(new URL(path, cluster.server), opts, payload);
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status, body: parsed };
}

interface ApiResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

const discovery = new Map<string, Promise<readonly ApiResource[]>>();

/** The collection path of `kind` in `apiVersion`, found through the API server's discovery. */
export async function collectionPath(
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
): Promise<{ path: string; namespaced: boolean }> {
  const root = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  let resources = discovery.get(root);
  if (resources === undefined) {
    resources = rawRequest("GET", root).then((r) => {
      if (r.status !== 200) throw new Error(`discovery of ${root}: ${r.status}`);
      return (r.body as { resources: ApiResource[] }).resources;
    });
    discovery.set(root, resources);
  }
  const found = (await resources).find((r) => r.kind === kind && !r.name.includes("/"));
  if (found === undefined)
    throw new Error(`the API server does not serve ${kind} in ${apiVersion}`);
  if (!found.namespaced) return { path: `${root}/${found.name}`, namespaced: false };
  if (namespace === undefined) throw new Error(`${kind} is namespaced: a namespace is required`);
  return { path: `${root}/namespaces/${namespace}/${found.name}`, namespaced: true };
}

/**
 * Server-side dry run of `obj` with strict field validation (an unknown or duplicated field is
 * an error, not a warning): a create, or — for a cluster-scoped object another test already
 * created under the same name — an update. Resolves with the API server's answer.
 */
export async function dryRun(obj: RenderedObject, releaseNamespace: string): Promise<RawResponse> {
  const { path, namespaced } = await collectionPath(
    obj.apiVersion,
    obj.kind,
    obj.metadata.namespace ?? releaseNamespace,
  );
  const query = "?dryRun=All&fieldValidation=Strict";
  const created = await rawRequest("POST", path + query, obj);
  const reason = (created.body as { reason?: unknown }).reason;
  if (created.status !== 409 || reason !== "AlreadyExists" || namespaced) return created;
  // Some kinds (admission policies) refuse an update without the stored resourceVersion.
  const objectPath = `${path}/${encodeURIComponent(obj.metadata.name)}`;
  const stored = await rawRequest("GET", objectPath);
  const resourceVersion = (stored.body as { metadata?: { resourceVersion?: string } }).metadata
    ?.resourceVersion;
  return rawRequest("PUT", objectPath + query, {
    ...obj,
    metadata: { ...obj.metadata, resourceVersion },
  });
}

/**
 * Installs the CRDs in .tools/crds (copied by tools/crds.sh from the Go module sources of
 * Gateway API and Envoy Gateway) and waits until each is Established. Idempotent.
 */
export async function installChartCrds(): Promise<readonly string[]> {
  await promisify(execFile)("bash", [join(REPO_ROOT, "tools", "crds.sh")], { cwd: REPO_ROOT });
  const dir = join(REPO_ROOT, ".tools", "crds");
  const names: string[] = [];
  const groupVersions = new Set<string>();
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".yaml")).sort()) {
    for (const doc of parseAllDocuments(await readFile(join(dir, file), "utf8"))) {
      const crd = doc.toJS() as {
        kind?: string;
        metadata?: { name?: string };
        spec?: { group?: string; versions?: { name: string; served: boolean }[] };
      } | null;
      if (crd?.kind !== "CustomResourceDefinition" || crd.metadata?.name === undefined) continue;
      const name = crd.metadata.name;
      const res = await rawRequest(
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        crd,
      );
      if (res.status !== 201 && res.status !== 409) {
        throw new Error(`creating CRD ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      names.push(name);
      for (const v of crd.spec?.versions ?? []) {
        if (v.served) groupVersions.add(`${crd.spec?.group ?? ""}/${v.name}`);
      }
    }
  }
  for (const name of names) {
    await eventually(`CRD ${name} Established`, async () => {
      const res = await rawRequest(
        "GET",
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      );
      const conditions =
        (res.body as { status?: { conditions?: { type: string; status: string }[] } }).status
          ?.conditions ?? [];
      return conditions.some((c) => c.type === "Established" && c.status === "True");
    });
  }
  for (const gv of groupVersions) {
    await eventually(`${gv} in discovery`, async () => {
      return (await rawRequest("GET", `/apis/${gv}`)).status === 200;
    });
  }
  return names;
}
