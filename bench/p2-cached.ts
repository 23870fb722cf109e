import type { NamespacePassInput } from "../src/drivers/compute.js";
import {
  RequestCounter,
  createObjectClient,
  loadKubeConfig,
} from "../src/drivers/kubernetes/client/index.js";
import { KubernetesComputeDriver } from "../src/drivers/kubernetes/compute/driver.js";
import { cachedObjectClient } from "../src/drivers/kubernetes/watch/cached-client.js";
import { startWatchSet } from "../src/drivers/kubernetes/watch/watch-set.js";
import type { BenchEnvironment } from "./environment.js";

/**
 * P2 as the worker process runs it: the same pass over the same unchanged, ready namespace,
 * with the worker's watch caches synced (as the worker identity) and the Compute Driver
 * reading through the cache-backed client. Counts what still reaches the API server.
 */
export async function cachedPassRow(
  env: BenchEnvironment,
  input: NamespacePassInput,
): Promise<[string, string, string, string]> {
  const kc = loadKubeConfig(env.config.kubernetes.kubeconfig);
  const set = startWatchSet({ kubeconfig: kc, counter: new RequestCounter(), onTouch: () => {} });
  const direct = createObjectClient(kc);
  try {
    if (!(await set.waitForSync(60_000))) throw new Error("P2: watch caches did not sync");
    const driver = new KubernetesComputeDriver({
      client: cachedObjectClient(direct, set.reflectors),
      settings: env.config.compute,
    });
    const pass = await driver.ensureNamespace(input);
    if (pass.outcome !== "ready") throw new Error(`P2 (cached): ${pass.outcome}`);
    const total = direct.counter.total();
    const writes = direct.counter.writes();
    return [
      "P2 requests per unchanged ready pass (managed), served from the worker's watch caches",
      `${total} requests, ${writes} writes`,
      "≤ 5, 0 writes",
      total <= 5 && writes === 0 ? "pass" : "FAIL",
    ];
  } finally {
    await set.stop();
    direct.close();
  }
}
