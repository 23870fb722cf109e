import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { cpuByGroup, type CpuByGroup } from "./process-cpu.js";

/** The cluster's processes (command names as /proc shows them, 15 characters at most). */
export const CLUSTER = new Set(["kube-apiserver", "etcd", "kube-controller"]);

/** A second in which the cluster used less than this much CPU is quiet. */
const QUIET_CPU_S = 0.1;
const SAMPLE_MS = 1000;
/** Past this, the next window starts anyway (and the log says so). */
const LIMIT_MS = 60_000;

export function clusterSeconds(from: CpuByGroup, to: CpuByGroup): number {
  let sum = 0;
  for (const name of CLUSTER) sum += (to.get(name) ?? 0) - (from.get(name) ?? 0);
  return sum;
}

/**
 * Waits until the cluster has done the work a window leaves behind it — the controller
 * manager's ServiceAccount and `kube-root-ca.crt` ConfigMap for every new namespace, the
 * quotas' status, the API server's and etcd's share of those — so that the next window does not
 * pay for the last one: until the cluster's processes use less than {@link QUIET_CPU_S} of CPU
 * in a second (at most {@link LIMIT_MS}). Every window of a split pair starts this way, so the
 * pair's order (OCC first, then bare) no longer charges OCC's leftovers to the bare side.
 * Returns a line for the log: how long it took, and the cluster's CPU meanwhile.
 */
export async function untilClusterQuiet(): Promise<string> {
  const start = performance.now();
  const first = await cpuByGroup(new Map());
  let from = first;
  for (;;) {
    await sleep(SAMPLE_MS);
    const to = await cpuByGroup(new Map());
    const second = clusterSeconds(from, to);
    from = to;
    const waited = performance.now() - start;
    if (second < QUIET_CPU_S || waited >= LIMIT_MS) {
      const used = clusterSeconds(first, to).toFixed(2);
      const how = second < QUIET_CPU_S ? "quiet" : `still busy (${second.toFixed(2)} s/s)`;
      return `cluster ${how} after ${(waited / 1000).toFixed(1)} s (its CPU meanwhile ${used} s)`;
    }
  }
}
