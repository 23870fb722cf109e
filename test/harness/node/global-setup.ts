import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { defaultBinDir, startLocalCluster } from "../../../src/devcluster/local-cluster.js";
import { startTestPostgres } from "../postgres.js";
import { REPO_ROOT } from "../helm.js";
import { IMAGE_DIR, IMAGE_TAG } from "./oci-image.js";
import { createBridge, startNode, type RunningNode } from "./node.js";
import { eventually, kubectl, waitForNodeReady } from "./kubectl.js";
import { startNetworkPolicyController } from "./network-policy.js";
import type { DeployedEnvironment } from "./environment.js";

/** The node's network, inside the run's own network namespace (nothing else uses it). */
const NODE_ADDRESS = "10.88.0.1";
const POD_CIDR = "10.88.0.0/16";

/**
 * The deployed tests' environment, started inside the network namespace tools/test-deployed.sh
 * made for the run (it refuses to start anywhere else): the CNI bridge, PostgreSQL, a cluster
 * whose API server listens on the bridge address, and a real node running the image.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const ns = process.env.OCC_DEPLOYED_NETNS ?? "";
  const dir = process.env.OCC_DEPLOYED_RUN_DIR ?? "";
  const current = ns === "" ? "" : execFileSync("ip", ["netns", "identify"]).toString().trim();
  if (ns === "" || dir === "" || current !== ns) {
    throw new Error(
      "the deployed tests run inside the network namespace of their run: use " +
        "`npm run test:deployed` (tools/test-deployed.sh), not vitest directly",
    );
  }
  const started = Date.now();
  const id = ns.replace(/^occ-deployed-/, "");
  const bridge = `occbr${id}`;
  // The Service range of startLocalCluster (--service-cluster-ip-range).
  await createBridge(bridge, `${NODE_ADDRESS}/16`, "10.0.0.0/24");
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of [...stops].reverse()) await stop().catch(() => undefined);
  };
  try {
    await mkdir(join(dir, "postgres"), { recursive: true });
    const [cluster, pg] = await Promise.all([
      startLocalCluster({ dir: join(dir, "cluster"), nodeAddress: NODE_ADDRESS }),
      startTestPostgres(join(dir, "postgres"), { address: NODE_ADDRESS, clientCidr: POD_CIDR }),
    ]);
    stops.push(
      () => cluster.stop(),
      () => pg.stop(),
    );
    const binDir = defaultBinDir();
    const nodeName = "occ-node";
    const node = await startNode({
      dir: join(dir, "node"),
      binDir,
      kubeconfig: cluster.kubeconfigs.admin,
      nodeName,
      bridge,
      nodeAddress: NODE_ADDRESS,
      podCidr: POD_CIDR,
      network: ns,
      images: [join(REPO_ROOT, ".tools", "images", "pause.tar"), join(IMAGE_DIR, "occ.tar")],
      sandboxImage: pauseImageRef(),
    });
    stops.push(async () => {
      // The pods first, through the kubelet (their containers, sandboxes, CNI and mounts);
      // tools/test-deployed.sh then removes whatever is left.
      await drainNode(cluster.kubeconfigs.admin, node);
      await node.stop();
    });
    await waitForNodeReady(cluster.kubeconfigs.admin, nodeName, 120_000);
    // NetworkPolicies enforced on the node (kube-router's policy controller).
    stops.push(
      await startNetworkPolicyController({
        binDir,
        dir: join(dir, "node", "logs"),
        kubeconfig: cluster.kubeconfigs.admin,
        nodeName,
      }),
    );
    const env: DeployedEnvironment = {
      server: cluster.server,
      kubeconfig: cluster.kubeconfigs.admin,
      nodeName,
      nodeAddress: NODE_ADDRESS,
      databaseAdminUrl: pg.adminUrl,
      databaseUrlForPods: pg.adminUrl.replace("127.0.0.1", NODE_ADDRESS),
      image: IMAGE_TAG,
      containerdSocket: node.containerdSocket,
      imageDir: IMAGE_DIR,
      runDir: dir,
    };
    console.log(`[deployed] node ${nodeName} Ready in ${Date.now() - started} ms (${dir})`);
    project.provide("deployed", env);
  } catch (err) {
    await stopAll();
    throw err;
  }
  return async () => {
    await recordProcesses(ns, `${dir}.processes`).catch(() => undefined);
    await stopAll();
  };
}

/**
 * Writes `pid:starttime` of every process of the run (in its network namespace or in a pod's
 * cgroup) for test/deployed/leftovers.test.ts, which checks that none outlives the teardown.
 */
async function recordProcesses(ns: string, file: string): Promise<void> {
  const pids = new Set(execFileSync("ip", ["netns", "pids", ns]).toString().split(/\s+/));
  const procs = execFileSync("find", [
    "/sys/fs/cgroup",
    "-path",
    "*/kubepods*",
    "-name",
    "cgroup.procs",
  ])
    .toString()
    .split("\n")
    .filter((f) => f !== "");
  for (const f of procs) {
    for (const pid of (await readFile(f, "utf8").catch(() => "")).split("\n")) pids.add(pid);
  }
  const lines: string[] = [];
  for (const pid of pids) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    const start = stat.split(") ")[1]?.split(" ")[19];
    if (start !== undefined) lines.push(`${pid}:${start}`);
  }
  await writeFile(file, lines.join("\n"));
}

/** The pause image tools/build-cluster-tools.sh builds: `occ.local/pause:<k8s release>`. */
function pauseImageRef(): string {
  const mod = execFileSync("awk", [
    '$1 == "k8s.io/kubernetes" {print $2}',
    join(REPO_ROOT, "tools", "k8s", "go.mod"),
  ])
    .toString()
    .trim()
    .split("\n")[0];
  return `occ.local/pause:${mod ?? ""}`;
}

/** Deletes every workload and pod, and waits (bounded) until containerd runs no task. */
async function drainNode(kubeconfig: string, node: RunningNode): Promise<void> {
  await kubectl(kubeconfig, ["delete", "deploy,rs,job,sts,ds", "--all", "-A", "--wait=false"]);
  await kubectl(kubeconfig, ["delete", "pods", "--all", "-A", "--grace-period=1", "--timeout=60s"]);
  await eventually(
    "the node runs no container",
    async () => ((await node.ctr(["tasks", "ls", "-q"])).trim() === "" ? true : undefined),
    60_000,
  ).catch(() => undefined);
}
