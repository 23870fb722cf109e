/**
 * What the deployed suites read back from the node's API server and the release's database,
 * how they open a release (its database, its namespace, then its API once installed) and the
 * one request they all make (a Namespace through the API Service). Shared by chart.test.ts
 * and upgrade.test.ts; each reads its own release's objects.
 */
import { expect } from "vitest";
import pg from "pg";
import { LABELS, OWNED_OBJECT_NAMES } from "../../src/domain/index.js";
import {
  apiClient,
  apiServiceUrl,
  bootstrapKey,
  createDatabase,
  prepareReleaseNamespace,
  type Api,
  type NamespaceView,
} from "../harness/node/chart.js";
import { operatorShell } from "../harness/node/operator.js";
import { kubectlOk } from "../harness/node/kubectl.js";
import type { DeployedEnvironment } from "../harness/node/environment.js";

export interface K8sObject {
  metadata: {
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
}

/** `kubectl get <args> -o json`, parsed. */
export async function getObject(
  env: DeployedEnvironment,
  args: readonly string[],
): Promise<K8sObject> {
  return JSON.parse(await kubectlOk(env.kubeconfig, ["get", ...args, "-o", "json"])) as K8sObject;
}

/** The non-empty lines of `kubectl get <args> -o jsonpath=<path>`, sorted. */
async function sortedLines(
  env: DeployedEnvironment,
  args: readonly string[],
  jsonpath: string,
): Promise<string[]> {
  const out = await kubectlOk(env.kubeconfig, ["get", ...args, "-o", `jsonpath=${jsonpath}`]);
  return out
    .split("\n")
    .filter((l) => l !== "")
    .sort();
}

/** Each RoleBinding in `namespace` as `<ClusterRole> <namespace>/<ServiceAccount>`, sorted. */
export function roleBindings(env: DeployedEnvironment, namespace: string): Promise<string[]> {
  return sortedLines(
    env,
    ["-n", namespace, "rolebindings"],
    '{range .items[*]}{.roleRef.name} {.subjects[*].namespace}/{.subjects[*].name}{"\\n"}{end}',
  );
}

/** The kinds/names of the objects OCC owns in `namespace`, read back from the API server. */
export function ownedObjects(env: DeployedEnvironment, namespace: string): Promise<string[]> {
  return sortedLines(
    env,
    ["-n", namespace, "resourcequota,limitrange,networkpolicy"],
    '{range .items[*]}{.kind}/{.metadata.name}{"\\n"}{end}',
  );
}

/** What {@link ownedObjects} reads in a ready tenant's namespace. */
export const EXPECTED_OWNED = [
  `LimitRange/${OWNED_OBJECT_NAMES.limits}`,
  `NetworkPolicy/${OWNED_OBJECT_NAMES.allowDns}`,
  `NetworkPolicy/${OWNED_OBJECT_NAMES.allowGatewayIngress}`,
  `NetworkPolicy/${OWNED_OBJECT_NAMES.defaultDeny}`,
  `ResourceQuota/${OWNED_OBJECT_NAMES.quota}`,
].sort();

/** The Kubernetes namespaces carrying tenant `id`'s label. */
export async function labelled(env: DeployedEnvironment, id: string): Promise<string[]> {
  const out = await kubectlOk(env.kubeconfig, [
    "get",
    "namespaces",
    "-l",
    `${LABELS.namespace}=${id}`,
    "-o",
    "name",
  ]);
  return out.split("\n").filter((l) => l !== "");
}

/** POST /namespaces through the API Service (managed, or on `existingNamespace`): the ID. */
export async function createNamespace(
  api: Api,
  body: { name: string; existingNamespace?: string },
): Promise<string> {
  const res = await api.call("POST", "/namespaces", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body as { data: NamespaceView }).data.id;
}

/**
 * Watches tenant statuses in PostgreSQL until stopped (those of `ids`, or every live one as
 * `status` alone); the stop returns every one seen, sorted.
 */
export function watchStatuses(db: pg.Client, ids?: readonly string[]) {
  const seen = new Set<string>();
  const state = { running: true };
  const loop = (async () => {
    while (state.running) {
      if (ids === undefined) {
        const r = await db.query<{ status: string }>(
          "SELECT DISTINCT status FROM namespaces WHERE deleted_at IS NULL",
        );
        for (const row of r.rows) seen.add(row.status);
      } else {
        const r = await db.query<{ id: string; status: string }>(
          "SELECT id, status FROM namespaces WHERE id = ANY($1)",
          [ids],
        );
        for (const row of r.rows) seen.add(`${row.id} ${row.status}`);
      }
      await new Promise((res) => setTimeout(res, 200));
    }
  })();
  return async () => {
    state.running = false;
    await loop;
    return [...seen].sort();
  };
}

/** A database `name` for the release, a client of it, and release namespace `ns` prepared. */
export async function openReleaseDatabase(
  env: DeployedEnvironment,
  ns: string,
  name: string,
): Promise<pg.Client> {
  const database = await createDatabase(env, name);
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  await prepareReleaseNamespace(env, ns, database.urlForPods);
  return db;
}

/** Once installed: the bootstrap key, the API Service's URL, a client and the operator's shell. */
export async function reachRelease(
  env: DeployedEnvironment,
  ns: string,
  names: { init: string; api: string },
) {
  const key = await bootstrapKey(env, ns, names.init);
  const url = await apiServiceUrl(env, ns, names.api);
  return { key, url, api: apiClient(url, key), operator: await operatorShell(env, { url, key }) };
}
