import { performance } from "node:perf_hooks";
import {
  desiredManagedNamespace,
  desiredOwnedObjects,
  newNamespaceId,
} from "../src/domain/index.js";
import {
  RequestCounter,
  createObjectClient,
  loadKubeConfig,
} from "../src/drivers/kubernetes/client/index.js";
import { recordNamespaceEvent } from "../src/drivers/kubernetes/events.js";
import { startWatchSet } from "../src/drivers/kubernetes/watch/watch-set.js";
import type { BenchEnvironment } from "./environment.js";

/**
 * The floor P1 compares with: the same Kubernetes writes OCC makes for a managed Namespace
 * (the namespace, then its quota, limit range and three policies, then the one Event that
 * records the transition to ready, lifecycle.md §2), from a plain script with the same
 * identity and concurrency, and no reads, database or queue.
 */
export async function bareProvisioning(
  env: BenchEnvironment,
  tenants: number,
  concurrency: number,
): Promise<number> {
  const client = createObjectClient(loadKubeConfig(env.config.kubernetes.kubeconfig));
  const routing = env.config.compute.gatewayRouting;
  const one = async () => {
    const id = newNamespaceId();
    const ns = desiredManagedNamespace(id, routing);
    await client.create("Namespace", ns);
    const name = ns.metadata?.name ?? "";
    for (const obj of desiredOwnedObjects(id, name, env.config.compute)) {
      await client.create(obj.kind, obj);
    }
    const event = {
      type: "Normal" as const,
      reason: "READY",
      message: `platform Namespace ${id} is ready`,
    };
    if (!(await recordNamespaceEvent(client, name, event))) throw new Error("bare: Event refused");
  };
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < tenants) {
        next += 1;
        await one();
      }
    }),
  );
  const ms = performance.now() - start;
  client.close();
  return ms;
}

/**
 * The bare client's same writes while the worker's watches (`WATCHED_KINDS`, the worker's
 * identity) are open in the same process, as they are in `occ worker`, doing nothing with what
 * they see: what the watches the spec requires (lifecycle.md §1; P2, P7, P8) cost the cluster
 * and their client on these 2 cores, before any database, queue or API work.
 */
export async function bareProvisioningWatched(
  env: BenchEnvironment,
  tenants: number,
  concurrency: number,
  /** Called once the caches are synced, right before the writes (a CPU reading). */
  synced?: () => Promise<void>,
): Promise<number> {
  const set = startWatchSet({
    kubeconfig: loadKubeConfig(env.config.kubernetes.kubeconfig),
    counter: new RequestCounter(),
    onTouch: () => undefined,
  });
  try {
    if (!(await set.waitForSync(60_000))) throw new Error("bare: the watch caches did not sync");
    await synced?.();
    return await bareProvisioning(env, tenants, concurrency);
  } finally {
    await set.stop();
  }
}
