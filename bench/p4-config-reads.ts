import { performance } from "node:perf_hooks";
import { pino } from "pino";
import { validateInstallationConfig } from "../src/config/installation-config.js";
import { desiredManagedNamespace, newNamespaceId } from "../src/domain/index.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../src/drivers/kubernetes/client/index.js";
import { createMissing, tenantRoleBinding } from "../src/drivers/kubernetes/rbac-objects.js";
import { startApiProcess } from "../src/main/processes.js";
import type { Db } from "../src/store/db.js";
import { percentile, type BenchEnvironment } from "./environment.js";
import { apiRequest, postNamespace } from "./occ-process.js";

/** Every namespace that carries a tenant label (managed or bound). */
const TENANT_NAMESPACES = "openclaw.dev/namespace";

export interface ConfigReadsResult {
  readonly small: number;
  readonly large: number;
  readonly smallP50: number;
  readonly largeP50: number;
}

/**
 * P4: `GET /namespaces/{id}/configurations/{cfg}` through the API (running as `occ-api`,
 * in this process), p50 of `reads` sequential reads of one ready tenant's Configuration with
 * `small` tenant namespaces in the cluster, then with `large`. The other tenants' namespaces
 * are created directly by the administrator with the full managed markers of other tenant
 * IDs (no database rows, no owned objects): they are what the API's label-selector list and
 * the API server's filtering have to look through. Tenant namespaces left by earlier bars are
 * deleted first, and the count is checked before each case.
 *
 * Needs a worker running on `env.db` to make the tenant ready.
 */
export async function measureConfigReads(
  env: BenchEnvironment,
  key: string,
  opts: { small: number; large: number; reads: number; log: (line: string) => void },
): Promise<ConfigReadsResult> {
  const admin = createObjectClient(loadKubeConfig(env.cluster.kubeconfigs.admin));
  const config = validateInstallationConfig(
    {
      kubernetes: {
        kubeconfig: env.cluster.kubeconfigs["occ-worker"],
        apiKubeconfig: env.cluster.kubeconfigs["occ-api"],
        rateLimit: env.config.kubernetes.rateLimit,
      },
    },
    "bench-p4",
  );
  const api = await startApiProcess({
    db: env.db,
    config,
    port: 0,
    logger: pino({ level: "silent" }),
  });
  try {
    opts.log("P4: deleting the tenant namespaces earlier bars left");
    await deleteTenantNamespaces(admin);

    const url = await configurationToRead(env.db, admin, api.url, key);
    const measure = async (tenants: number): Promise<number> => {
      await addNoise(admin, env, tenants);
      const count = (await admin.list("Namespace", { labelSelector: TENANT_NAMESPACES })).length;
      if (count !== tenants) throw new Error(`P4: ${count} tenant namespaces, not ${tenants}`);
      opts.log(`P4: ${opts.reads} configuration reads with ${count} tenant namespaces`);
      return readP50(url, key, opts.reads);
    };
    const smallP50 = await measure(opts.small);
    const largeP50 = await measure(opts.large);
    return { small: opts.small, large: opts.large, smallP50, largeP50 };
  } finally {
    await api.close();
    admin.close();
  }
}

/**
 * A ready tenant with one Configuration, through the API at `apiUrl` (a worker must be running
 * on `db`): the URL of that Configuration. The tenant's namespace grants the worker and the
 * API their tenant roles (the bench's identities hold no cluster-wide grant).
 */
export async function configurationToRead(
  db: Db,
  admin: ObjectClient,
  apiUrl: string,
  key: string,
): Promise<string> {
  const id = await postNamespace(apiUrl, key, "p4-tenant");
  const ns = await untilReady(db, id);
  const user = (name: string) => ({ kind: "User", name }) as const;
  await createMissing(admin, [
    tenantRoleBinding(ns, "worker", user("occ-worker")),
    tenantRoleBinding(ns, "api", user("occ-api")),
  ]);
  const created = await fetch(
    `${apiUrl}/namespaces/${id}/configurations`,
    apiRequest(key, "POST", { kind: "agent", values: { model: "bench", temperature: 0.2 } }),
  );
  if (created.status !== 201) {
    throw new Error(`P4 create configuration: ${created.status} ${await created.text()}`);
  }
  const cfg = ((await created.json()) as { data: { id: string } }).data.id;
  return `${apiUrl}/namespaces/${id}/configurations/${cfg}`;
}

/** p50 (ms) of `reads` sequential reads of `url`, after 20 uncounted warm-up reads. */
export async function readP50(url: string, key: string, reads: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < reads + 20; i++) {
    const start = performance.now();
    const res = await fetch(url, apiRequest(key, "GET"));
    const body = await res.text();
    if (res.status !== 200) throw new Error(`P4 read: ${res.status} ${body}`);
    if (i >= 20) times.push(performance.now() - start);
  }
  return percentile(times, 50);
}

async function untilReady(db: Db, id: string): Promise<string> {
  for (let waited = 0; waited < 60_000; waited += 20) {
    const res = await db.query<{ status: string; kubernetes_namespace: string | null }>(
      "SELECT status, kubernetes_namespace FROM namespaces WHERE id = $1",
      [id],
    );
    const row = res.rows[0];
    if (row?.status === "ready" && row.kubernetes_namespace !== null) {
      return row.kubernetes_namespace;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`P4: Namespace ${id} not ready within 60 s`);
}

/** Creates other tenants' managed namespaces until `target` tenant namespaces exist. */
async function addNoise(admin: ObjectClient, env: BenchEnvironment, target: number) {
  const routing = env.config.compute.gatewayRouting;
  const have = (await admin.list("Namespace", { labelSelector: TENANT_NAMESPACES })).length;
  for (let i = have; i < target; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, target - i) }, () =>
        admin.create("Namespace", desiredManagedNamespace(newNamespaceId(), routing)),
      ),
    );
  }
}

/** Deletes every tenant namespace and waits until the namespace controller has removed them. */
async function deleteTenantNamespaces(admin: ObjectClient) {
  const all = await admin.list("Namespace", { labelSelector: TENANT_NAMESPACES });
  for (let i = 0; i < all.length; i += 20) {
    await Promise.all(
      all
        .slice(i, i + 20)
        .map((ns) =>
          admin.delete("Namespace", { name: ns.metadata.name }, { uid: ns.metadata.uid ?? "" }),
        ),
    );
  }
  for (let waited = 0; ; waited += 500) {
    const left = await admin.list("Namespace", { labelSelector: TENANT_NAMESPACES });
    if (left.length === 0) return;
    if (waited > 300_000) throw new Error(`P4: ${left.length} tenant namespaces still terminating`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
