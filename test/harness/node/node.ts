import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  freePort,
  logTail,
  startProcess,
  stopProcess,
  waitUntil,
  type RunningProcess,
} from "../../../src/devcluster/processes.js";

const run = promisify(execFile);

/** A real node: containerd + runc, the CNI bridge, kubelet, kube-scheduler and kube-proxy. */
export interface NodeOptions {
  readonly dir: string;
  readonly binDir: string;
  /** The administrator's kubeconfig (the node's components use it). */
  readonly kubeconfig: string;
  readonly nodeName: string;
  /** The bridge, its address (the node's) and the pod network it serves. */
  readonly bridge: string;
  readonly nodeAddress: string;
  readonly podCidr: string;
  /** The CNI network's name (also the prefix of the CNI plugins' state). */
  readonly network: string;
  /** docker-archive files imported into containerd before the kubelet starts. */
  readonly images: readonly string[];
  readonly sandboxImage: string;
}

export interface RunningNode {
  readonly containerdSocket: string;
  /** `ctr` against this node's containerd, in the Kubernetes namespace. */
  ctr(args: readonly string[]): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Creates the bridge with the node's address, so the API server can bind it before any pod, and
 * routes the Service range through it (kube-proxy translates ClusterIPs only after routing).
 */
export async function createBridge(
  bridge: string,
  addressCidr: string,
  serviceCidr: string,
): Promise<void> {
  await run("ip", ["link", "add", bridge, "type", "bridge"]);
  await run("ip", ["addr", "add", addressCidr, "dev", bridge]);
  await run("ip", ["link", "set", bridge, "up"]);
  await run("ip", ["route", "add", serviceCidr, "dev", bridge]);
}

export async function startNode(opts: NodeOptions): Promise<RunningNode> {
  const dir = opts.dir;
  const logDir = join(dir, "logs");
  await mkdir(logDir, { recursive: true });
  const started: RunningProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const p of [...started].reverse()) await stopProcess(p, 15_000);
  };
  const socket = join(dir, "containerd", "containerd.sock");
  const ctr = async (args: readonly string[]): Promise<string> =>
    (
      await run("ctr", ["--address", socket, "--namespace", "k8s.io", ...args], {
        maxBuffer: 1 << 26,
      })
    ).stdout;
  try {
    await writeCniConfig(opts);
    const containerdConfig = await writeContainerdConfig(opts, socket);
    const containerd = startProcess(
      "containerd",
      "containerd",
      ["--config", containerdConfig],
      logDir,
    );
    started.push(containerd);
    await waitUntil(
      "containerd",
      async () => existsSync(socket) && (await ctr(["version"])) !== "",
      {
        timeoutMs: 60_000,
        died: containerd.exited,
        describe: () => logTail(containerd),
      },
    );
    for (const image of opts.images) await ctr(["images", "import", image]);

    const [kubeletPort, healthzPort, schedPort, proxyHealth, proxyMetrics] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const kubeletConfig = join(dir, "kubelet-config.yaml");
    await writeFile(kubeletConfig, kubeletConfigYaml(opts, kubeletPort, healthzPort));
    const kubelet = startProcess(
      "kubelet",
      join(opts.binDir, "kubelet"),
      [
        `--config=${kubeletConfig}`,
        `--kubeconfig=${opts.kubeconfig}`,
        `--container-runtime-endpoint=unix://${socket}`,
        `--hostname-override=${opts.nodeName}`,
        `--node-ip=${opts.nodeAddress}`,
        `--root-dir=${join(dir, "kubelet")}`,
        `--cert-dir=${join(dir, "kubelet", "pki")}`,
        "--v=1",
      ],
      logDir,
    );
    started.push(kubelet);
    const scheduler = startProcess(
      "kube-scheduler",
      join(opts.binDir, "kube-scheduler"),
      [
        `--kubeconfig=${opts.kubeconfig}`,
        `--authentication-kubeconfig=${opts.kubeconfig}`,
        `--authorization-kubeconfig=${opts.kubeconfig}`,
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        `--secure-port=${schedPort}`,
      ],
      logDir,
    );
    started.push(scheduler);
    const proxyConfig = join(dir, "kube-proxy-config.yaml");
    await writeFile(proxyConfig, kubeProxyConfigYaml(opts, proxyHealth, proxyMetrics));
    const proxy = startProcess(
      "kube-proxy",
      join(opts.binDir, "kube-proxy"),
      [`--config=${proxyConfig}`],
      logDir,
    );
    started.push(proxy);
    await waitUntil(
      "kube-proxy",
      async () => (await fetch(`http://127.0.0.1:${proxyHealth}/healthz`)).ok,
      { timeoutMs: 90_000, died: proxy.exited, describe: () => logTail(proxy) },
    );
    return { containerdSocket: socket, ctr, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function writeCniConfig(opts: NodeOptions): Promise<void> {
  const confDir = join(opts.dir, "cni", "net.d");
  await mkdir(confDir, { recursive: true });
  const conf = {
    cniVersion: "1.0.0",
    name: opts.network,
    plugins: [
      {
        type: "bridge",
        bridge: opts.bridge,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: "host-local",
          ranges: [[{ subnet: opts.podCidr, gateway: opts.nodeAddress }]],
          routes: [{ dst: "0.0.0.0/0" }],
          dataDir: join(opts.dir, "cni", "ipam"),
        },
      },
    ],
  };
  await writeFile(join(confDir, "10-occ.conflist"), JSON.stringify(conf, null, 2));
}

async function writeContainerdConfig(opts: NodeOptions, socket: string): Promise<string> {
  const c = join(opts.dir, "containerd");
  await mkdir(c, { recursive: true });
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  // Debian's containerd 1.6: its own root, state, socket and runc root under the run folder;
  // `restrict_oom_score_adj` because root here lacks CAP_SYS_RESOURCE; cgroupfs, not systemd.
  const toml = `version = 2
root = "${join(c, "root")}"
state = "${join(c, "state")}"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "${socket}"
[ttrpc]
  address = "${socket}.ttrpc"
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "${join(c, "opt")}"
[${cri}]
  sandbox_image = "${opts.sandboxImage}"
  restrict_oom_score_adj = true
  enable_selinux = false
  [${cri}.containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [${cri}.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [${cri}.containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "${join(c, "runc")}"
  [${cri}.cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${join(opts.dir, "cni", "net.d")}"
`;
  const file = join(c, "config.toml");
  await writeFile(file, toml);
  return file;
}

function kubeletConfigYaml(opts: NodeOptions, port: number, healthzPort: number): string {
  const d = opts.dir;
  // cgroup v1 (hybrid host) accepted, cgroupfs, no swap check; nothing under /var/lib/kubelet;
  // image GC never (the images cannot be pulled again), eviction only when nearly full.
  return `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: ${opts.nodeAddress}
port: ${port}
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: ${healthzPort}
authentication:
  anonymous: { enabled: true }
  webhook: { enabled: false }
authorization:
  mode: AlwaysAllow
failCgroupV1: false
cgroupDriver: cgroupfs
failSwapOn: false
podLogsDir: ${join(d, "pod-logs")}
volumePluginDir: ${join(d, "kubelet", "volume-plugins")}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: 100Mi
  nodefs.available: 1%
  nodefs.inodesFree: 1%
  imagefs.available: 1%
registerNode: true
serializeImagePulls: false
resolvConf: /etc/resolv.conf
`;
}

function kubeProxyConfigYaml(opts: NodeOptions, healthPort: number, metricsPort: number): string {
  // iptables mode; conntrack limits and timeouts left as they are (they are kernel-wide).
  return `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clusterCIDR: ${opts.podCidr}
hostnameOverride: ${opts.nodeName}
bindAddress: ${opts.nodeAddress}
healthzBindAddress: 127.0.0.1:${healthPort}
metricsBindAddress: 127.0.0.1:${metricsPort}
clientConnection:
  kubeconfig: ${opts.kubeconfig}
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
`;
}
