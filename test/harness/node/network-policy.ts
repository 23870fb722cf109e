import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  freePort,
  logTail,
  startProcess,
  stopProcess,
  waitUntil,
} from "../../../src/devcluster/processes.js";

const run = promisify(execFile);

/** kube-router's periodic full sync of its chains and ipsets. */
const IPTABLES_SYNC_SECONDS = 10;

/**
 * kube-router's NetworkPolicy controller alone (`--run-firewall`; no routing, service proxy or
 * CNI of its own: the bridge plugin and kube-proxy stay), so that the node enforces the
 * NetworkPolicies OCC renders. Pods on one bridge reach each other through the bridge, which
 * iptables sees only with `bridge-nf-call-iptables` (set in the run's network namespace, where
 * the chains and ipsets it creates also live and die).
 */
export async function startNetworkPolicyController(opts: {
  readonly binDir: string;
  readonly dir: string;
  readonly kubeconfig: string;
  readonly nodeName: string;
}): Promise<() => Promise<void>> {
  await writeFile("/proc/sys/net/bridge/bridge-nf-call-iptables", "1");
  const health = await freePort();
  const p = startProcess(
    "kube-router",
    join(opts.binDir, "kube-router"),
    [
      `--kubeconfig=${opts.kubeconfig}`,
      `--hostname-override=${opts.nodeName}`,
      "--run-firewall=true",
      "--run-router=false",
      "--run-service-proxy=false",
      "--enable-cni=false",
      "--enable-pod-egress=false",
      `--health-port=${health}`,
      `--iptables-sync-period=${IPTABLES_SYNC_SECONDS}s`,
      "--v=1",
    ],
    opts.dir,
  );
  await waitUntil(
    "kube-router",
    async () => (await fetch(`http://127.0.0.1:${health}/healthz`)).ok,
    { timeoutMs: 90_000, died: p.exited, describe: () => logTail(p) },
  );
  return async () => {
    await stopProcess(p, 10_000);
  };
}

/** The filter chains kube-router made (for a failing test's message). */
export async function policyChains(): Promise<string> {
  return (await run("iptables-save", ["-t", "filter"], { maxBuffer: 1 << 24 })).stdout
    .split("\n")
    .filter(
      (l) => l.includes("KUBE-ROUTER") || l.includes("KUBE-POD-FW") || l.includes("KUBE-NWPLCY"),
    )
    .join("\n");
}

/** Where a test pod runs, of which image, with which labels. */
export interface PodPlace {
  readonly name: string;
  readonly namespace: string;
  readonly image: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A pod of the image that listens on `ports` (TCP) until deleted. */
export function listenerPod(opts: PodPlace & { readonly ports: readonly number[] }): object {
  const script = `const net=require("net");for(const p of ${JSON.stringify(opts.ports)})net.createServer((s)=>{s.on("error",()=>{});s.end("hi")}).listen(p);`;
  return pod(opts, ["node", "-e", script], "Always", {
    tcpSocket: { port: opts.ports[0] },
    periodSeconds: 1,
  });
}

/**
 * A pod of the image that tries a TCP connection to each `host:port` (3 s each) and prints
 * `<host:port> open|blocked`, after a pause that lets the policy controller program the new
 * pod. kube-router syncs on the pod's events, but a sync that ran before it knew the pod's IP
 * leaves the pod unprogrammed until the next one: the pause outlasts the periodic full sync
 * ({@link IPTABLES_SYNC_SECONDS}) from the pod's start, plus the kubelet reporting the IP and the
 * sync itself on a loaded machine, so a full sync that knew the pod has run before it probes.
 */
export function probePod(opts: PodPlace & { readonly targets: readonly string[] }): object {
  const script = `const net=require("net");
const targets=${JSON.stringify(opts.targets)};
const probe=(t)=>new Promise((r)=>{const [h,p]=t.split(":");const s=net.connect({host:h,port:Number(p)});
s.setTimeout(3000);s.on("connect",()=>{s.destroy();r("open")});s.on("timeout",()=>{s.destroy();r("blocked")});
s.on("error",()=>r("blocked"))});
setTimeout(async()=>{for(const t of targets)console.log(t+" "+(await probe(t)))},${(IPTABLES_SYNC_SECONDS + 4) * 1000});`;
  return pod(opts, ["node", "-e", script], "Never");
}

function pod(
  opts: PodPlace,
  command: readonly string[],
  restartPolicy: "Always" | "Never",
  readinessProbe?: object,
): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: opts.name, namespace: opts.namespace, labels: opts.labels },
    spec: {
      restartPolicy,
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 1,
      // Pod Security `restricted` (the tenant namespaces enforce it).
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        {
          name: "main",
          image: opts.image,
          imagePullPolicy: "Never",
          command,
          ...(readinessProbe !== undefined ? { readinessProbe } : {}),
          securityContext: {
            allowPrivilegeEscalation: false,
            capabilities: { drop: ["ALL"] },
            readOnlyRootFilesystem: true,
          },
        },
      ],
    },
  };
}
