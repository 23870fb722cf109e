import { generateKeyPairSync } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CLUSTER_IDENTITIES,
  CLUSTER_IDENTITY_NAMES,
  newIdentityTokens,
  parseIdentityTokens,
  perIdentity,
  tokenAuthFile,
  type ClusterIdentity,
  type IdentityTokens,
} from "./identities.js";
import { kubeconfigYaml } from "./kubeconfig.js";
import {
  freePort,
  logTail,
  startProcess,
  stopProcess,
  waitUntil,
  type RunningProcess,
} from "./processes.js";

/** The binaries a local cluster needs; built by `tools/build-cluster-tools.sh`. */
export const CLUSTER_BINARIES = ["etcd", "kube-apiserver", "kube-controller-manager"] as const;

export interface LocalClusterOptions {
  /** State folder. Reused when it already holds a cluster: etcd data, keys and tokens persist. */
  readonly dir: string;
  /** Where the binaries are; default `$OCC_CLUSTER_BIN_DIR` or `<repo>/.tools/bin`. */
  readonly binDir?: string;
  readonly readyTimeoutMs?: number;
  /** Extra kube-apiserver flags (tests: e.g. a short `--etcd-compaction-interval`). */
  readonly apiServerArgs?: readonly string[];
  /**
   * For a cluster with a real node (the deployed tests): the address the API server binds and
   * advertises (one that pods reach), with the `kubernetes` Service's endpoints kept by the
   * lease reconciler, and every default controller of the controller manager. Default: loopback,
   * no endpoints, only the namespace and garbage-collector controllers.
   */
  readonly nodeAddress?: string;
}

export interface LocalCluster {
  readonly server: string;
  readonly caPem: string;
  readonly tokens: IdentityTokens;
  /** One kubeconfig file per identity. */
  readonly kubeconfigs: Readonly<Record<ClusterIdentity, string>>;
  readonly logDir: string;
  /**
   * Stops kube-apiserver (SIGTERM) and starts it again on the same port with the same
   * certificates, etcd untouched; resolves once it is ready again. `whileDown` runs in between.
   */
  restartApiServer(whileDown?: () => Promise<void>): Promise<void>;
  /** Stops the controller manager, the API server and etcd, in that order. */
  stop(): Promise<void>;
}

export function defaultBinDir(): string {
  const fromEnv = process.env.OCC_CLUSTER_BIN_DIR;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  return resolve(dirname(fileURLToPath(import.meta.url)), "../../.tools/bin");
}

/** Fails with the fix when a binary is missing, instead of a confusing spawn error later. */
export function assertBinaries(binDir: string): void {
  const missing = CLUSTER_BINARIES.filter((b) => !existsSync(join(binDir, b)));
  if (missing.length > 0) {
    throw new Error(
      `local cluster: ${missing.join(", ")} not found in ${binDir}. ` +
        "Build them with `bash tools/build-cluster-tools.sh` (or set OCC_CLUSTER_BIN_DIR).",
    );
  }
}

async function readOrCreate(path: string, make: () => string): Promise<string> {
  if (existsSync(path)) return readFile(path, "utf8");
  const value = make();
  await writeFile(path, value, { mode: 0o600 });
  return value;
}

/** Starts etcd, kube-apiserver (RBAC, static tokens) and kube-controller-manager on loopback. */
export async function startLocalCluster(opts: LocalClusterOptions): Promise<LocalCluster> {
  const binDir = opts.binDir ?? defaultBinDir();
  assertBinaries(binDir);
  const dir = resolve(opts.dir);
  const logDir = join(dir, "logs");
  const pki = join(dir, "pki");
  await mkdir(logDir, { recursive: true });
  await mkdir(pki, { recursive: true });
  const timeoutMs = opts.readyTimeoutMs ?? 90_000;

  const tokensFile = join(dir, "tokens.json");
  const tokens = parseIdentityTokens(
    JSON.parse(await readOrCreate(tokensFile, () => JSON.stringify(newIdentityTokens()))),
    tokensFile,
  );
  await writeFile(join(pki, "tokens.csv"), tokenAuthFile(tokens), { mode: 0o600 });
  const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const saKey = join(pki, "sa.key");
  await readOrCreate(saKey, () =>
    keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  );
  const saPub = join(pki, "sa.pub");
  await readOrCreate(saPub, () =>
    keys.publicKey.export({ type: "spki", format: "pem" }).toString(),
  );

  const started: RunningProcess[] = [];
  let restartApiServer: LocalCluster["restartApiServer"] = () =>
    Promise.reject(new Error("kube-apiserver not started"));
  const stop = async (): Promise<void> => {
    for (const p of [...started].reverse()) await stopProcess(p);
  };
  try {
    const [etcdPort, peerPort, apiPort, kcmPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const etcd = startProcess(
      "etcd",
      join(binDir, "etcd"),
      [
        `--data-dir=${join(dir, "etcd")}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=default=${peerUrl}`,
        "--unsafe-no-fsync",
        "--log-level=warn",
      ],
      logDir,
    );
    started.push(etcd);
    await waitUntil("etcd", () => httpOk(`${etcdUrl}/health`), {
      timeoutMs,
      died: etcd.exited,
      describe: () => logTail(etcd),
    });

    const address = opts.nodeAddress ?? "127.0.0.1";
    const server = `https://${address}:${apiPort}`;
    const nodeFlags =
      opts.nodeAddress === undefined
        ? ["--endpoint-reconciler-type=none"]
        : ["--endpoint-reconciler-type=lease", "--kubelet-preferred-address-types=InternalIP"];
    const caFile = join(pki, "apiserver", "apiserver.crt");
    // The API server's slot in `started` (after etcd), replaced on a restart.
    const apiSlot = started.length;
    const startApi = async (): Promise<RunningProcess> => {
      const api = startProcess(
        "kube-apiserver",
        join(binDir, "kube-apiserver"),
        [
          `--etcd-servers=${etcdUrl}`,
          `--bind-address=${address}`,
          `--advertise-address=${address}`,
          `--secure-port=${apiPort}`,
          `--cert-dir=${join(pki, "apiserver")}`,
          "--authorization-mode=RBAC",
          `--token-auth-file=${join(pki, "tokens.csv")}`,
          "--service-cluster-ip-range=10.0.0.0/24",
          "--service-account-issuer=https://kubernetes.default.svc",
          `--service-account-key-file=${saPub}`,
          `--service-account-signing-key-file=${saKey}`,
          "--enable-priority-and-fairness=false",
          ...nodeFlags,
          ...(opts.apiServerArgs ?? []),
        ],
        logDir,
      );
      started[apiSlot] = api;
      await waitUntil("kube-apiserver", () => readyz(server, caFile, tokens.admin), {
        timeoutMs,
        died: api.exited,
        describe: () => logTail(api),
      });
      return api;
    };
    let api = await startApi();
    restartApiServer = async (whileDown) => {
      await stopProcess(api);
      await whileDown?.();
      api = await startApi();
    };
    const caPem = await readFile(caFile, "utf8");

    const kubeconfigs = perIdentity((id) => join(dir, `kubeconfig-${id}.yaml`));
    for (const id of CLUSTER_IDENTITY_NAMES) {
      const user = CLUSTER_IDENTITIES[id].user;
      await writeFile(kubeconfigs[id], kubeconfigYaml({ server, caPem, user, token: tokens[id] }), {
        mode: 0o600,
      });
    }

    const kcm = startProcess(
      "kube-controller-manager",
      join(binDir, "kube-controller-manager"),
      [
        `--kubeconfig=${kubeconfigs.admin}`,
        `--authentication-kubeconfig=${kubeconfigs.admin}`,
        `--authorization-kubeconfig=${kubeconfigs.admin}`,
        opts.nodeAddress === undefined
          ? "--controllers=namespace-controller,garbage-collector-controller"
          : "--controllers=*",
        "--leader-elect=false",
        "--bind-address=127.0.0.1",
        `--secure-port=${kcmPort}`,
        `--cert-dir=${join(pki, "kcm")}`,
      ],
      logDir,
    );
    started.push(kcm);
    await waitUntil(
      "kube-controller-manager",
      () => httpsOk(`https://127.0.0.1:${kcmPort}/healthz`),
      { timeoutMs, died: kcm.exited, describe: () => logTail(kcm) },
    );
    return {
      server,
      caPem,
      tokens,
      kubeconfigs,
      logDir,
      stop,
      restartApiServer: (whileDown) => restartApiServer(whileDown),
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return res.ok;
}

function httpsGet(url: string, opts: { ca?: string; token?: string }): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const req = request(
      url,
      {
        method: "GET",
        timeout: 2_000,
        // The controller manager's health port serves a certificate it made for itself; only
        // its status code is read, and no credential is sent there.
        ...(opts.ca !== undefined ? { ca: opts.ca } : { rejectUnauthorized: false }),
        headers: opts.token !== undefined ? { authorization: `Bearer ${opts.token}` } : {},
      },
      (res) => {
        res.resume();
        resolveStatus(res.statusCode ?? 0);
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

async function readyz(server: string, caFile: string, token: string): Promise<boolean> {
  if (!existsSync(caFile)) return false;
  const ca = await readFile(caFile, "utf8");
  return (await httpsGet(`${server}/readyz`, { ca, token })) === 200;
}

async function httpsOk(url: string): Promise<boolean> {
  return (await httpsGet(url, {})) === 200;
}
