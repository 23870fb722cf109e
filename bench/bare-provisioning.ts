import { performance } from "node:perf_hooks";
import {
  desiredManagedNamespace,
  desiredOwnedObjects,
  newNamespaceId,
} from "../src/domain/index.js";
import { createObjectClient, loadKubeConfig } from "../src/drivers/kubernetes/client/index.js";
import type { BenchEnvironment } from "./environment.js";

/**
 * The floor P1 compares with: the same Kubernetes writes OCC makes for a managed Namespace
 * (the namespace, then its quota, limit range and three policies), from a plain script with
 * the same identity and concurrency, and no reads, database or queue.
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
    for (const obj of desiredOwnedObjects(id, ns.metadata?.name ?? "", env.config.compute)) {
      await client.create(obj.kind, obj);
    }
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
