import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { InstallationConfig } from "../config/installation-config.js";
import { installAdmissionPolicies } from "../devcluster/admission.js";
import { startLocalCluster } from "../devcluster/local-cluster.js";
import {
  admissionPolicyObjects,
  openshellPolicyOptions,
} from "../drivers/kubernetes/admission-policies.js";
import { createObjectClient, loadKubeConfig } from "../drivers/kubernetes/client/index.js";
import {
  chartClusterRbac,
  createMissing,
  devTenantRolesClusterWide,
  type RbacSubject,
} from "../drivers/kubernetes/rbac-objects.js";
import { migrate } from "../store/migrate.js";
import { openPglite } from "../store/pglite-db.js";
import { collectDefaultMetrics, Registry } from "prom-client";
import { createLogger } from "./logger.js";
import { registerControlPlaneMetrics } from "./metrics.js";
import { workerQueues } from "../work/queues.js";
import { runBootstrap, startApiProcess, startWorkerProcess } from "./processes.js";

export interface DevEnvironmentOptions {
  readonly stateDir: string;
  readonly config: InstallationConfig;
  /** API port; 0 picks a free one. */
  readonly port: number;
  /** Progress lines for the person who started it. */
  readonly say: (line: string) => void;
}

export interface DevEnvironment {
  readonly apiUrl: string;
  readonly apiKeyFile: string;
  readonly devEnvFile: string;
  readonly logFile: string;
  /** The administrator's user name and the file holding its generated password. */
  readonly administratorName: string;
  readonly passwordFile: string;
  /** Stops the worker, the API, the database and the cluster, in that order. */
  stop(): Promise<void>;
}

/**
 * The development sign-in: a password for the administrator, generated once and kept in
 * `admin-password` (mode 0600; set by bootstrap only when it was just generated, so a restart
 * keeps signed-in sessions), and a session key kept in `session-key`, so sessions survive a
 * restart. The password is never printed or logged: the file's path is.
 */
async function devSignIn(dir: string): Promise<{
  readonly passwordFile: string;
  readonly sessionKeyFile: string;
  readonly newPassword: string | undefined;
}> {
  const passwordFile = join(dir, "admin-password");
  const sessionKeyFile = join(dir, "session-key");
  if (!existsSync(sessionKeyFile)) {
    await writeFile(sessionKeyFile, `${randomBytes(48).toString("base64")}\n`, { mode: 0o600 });
  }
  if (existsSync(passwordFile)) return { passwordFile, sessionKeyFile, newPassword: undefined };
  // Written aside first and moved into place once bootstrap has set it (see startDevEnvironment).
  const pending = `${passwordFile}.pending`;
  if (!existsSync(pending)) {
    await writeFile(pending, `${randomBytes(18).toString("base64url")}\n`, { mode: 0o600 });
  }
  const newPassword = (await readFile(pending, "utf8")).trim();
  return { passwordFile, sessionKeyFile, newPassword };
}

/** The chart's worker and API identities, as the local cluster's static users. */
const IDENTITIES: { readonly worker: RbacSubject; readonly api: RbacSubject } = {
  worker: { kind: "User", name: "occ-worker" },
  api: { kind: "User", name: "occ-api" },
};

/**
 * `occ dev up`: the embedded default in one process — a local cluster (real etcd,
 * kube-apiserver, kube-controller-manager), PGlite, migrations, bootstrap, the API and the
 * worker. Everything lives in `stateDir`, so a restart resumes. The worker and API run as the
 * chart's identities with the chart's grants and admission policies (the worker binds the
 * tenant roles in the managed namespaces it creates); as an announced development convenience
 * the tenant roles are also bound cluster-wide, so external namespaces need no RoleBindings.
 */
export async function startDevEnvironment(opts: DevEnvironmentOptions): Promise<DevEnvironment> {
  const dir = resolve(opts.stateDir);
  await mkdir(dir, { recursive: true });
  const logFile = join(dir, "occ.log");
  const logger = createLogger("occ-dev", logFile);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s();
  };
  try {
    opts.say("starting the local cluster (etcd, kube-apiserver, kube-controller-manager)…");
    const cluster = await startLocalCluster({ dir: join(dir, "cluster") });
    stops.push(() => cluster.stop());
    const admin = createObjectClient(loadKubeConfig(cluster.kubeconfigs.admin));
    try {
      await createMissing(admin, chartClusterRbac(IDENTITIES.worker, IDENTITIES.api));
      await createMissing(admin, devTenantRolesClusterWide(IDENTITIES.worker, IDENTITIES.api));
    } finally {
      admin.close();
    }
    opts.say(
      "development only: the tenant roles are bound cluster-wide, so external namespaces need no RoleBindings here",
    );
    opts.say("installing the chart's admission policies for occ-worker and occ-api…");
    await installAdmissionPolicies(
      {
        server: cluster.server,
        caPem: cluster.caPem,
        adminToken: cluster.tokens.admin,
        adminKubeconfig: cluster.kubeconfigs.admin,
      },
      admissionPolicyObjects({
        subjects: [IDENTITIES.worker, IDENTITIES.api],
        ...openshellPolicyOptions(opts.config.openshell),
      }),
      IDENTITIES.worker.name,
    );

    opts.say("opening the embedded database (PGlite) and applying migrations…");
    const db = await openPglite(join(dir, "pglite"));
    stops.push(() => db.close());
    await migrate(db);
    const config: InstallationConfig = {
      ...opts.config,
      kubernetes: {
        ...opts.config.kubernetes,
        kubeconfig: cluster.kubeconfigs["occ-worker"],
        apiKubeconfig: cluster.kubeconfigs["occ-api"],
        tenantRoleBindings: IDENTITIES,
      },
    };
    const apiKeyFile = join(dir, "admin-api-key");
    const signIn = await devSignIn(dir);
    const devConfig: InstallationConfig = {
      ...config,
      auth: { ...config.auth, sessionKeyFile: config.auth.sessionKeyFile ?? signIn.sessionKeyFile },
    };
    const boot = await runBootstrap(
      db,
      devConfig,
      signIn.newPassword === undefined ? {} : { administratorPassword: signIn.newPassword },
    );
    if (signIn.newPassword !== undefined) {
      await rename(`${signIn.passwordFile}.pending`, signIn.passwordFile);
    }
    if (boot.apiKey !== null) await writeFile(apiKeyFile, `${boot.apiKey}\n`, { mode: 0o600 });
    if (!existsSync(apiKeyFile)) {
      throw new Error(
        `${apiKeyFile} is missing and the administrator's key is only issued once; remove ${dir} to start afresh`,
      );
    }

    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const metrics = registerControlPlaneMetrics(registry, db, workerQueues(config));
    const server = await startApiProcess({
      db,
      config: devConfig,
      port: opts.port,
      logger,
      registry,
    });
    stops.push(() => server.close());
    const worker = await startWorkerProcess({ db, config, logger, metrics });
    stops.push(() => worker.stop());

    const apiKey = (await readFile(apiKeyFile, "utf8")).trim();
    const devEnvFile = join(dir, "dev.env");
    await writeFile(
      devEnvFile,
      [
        `OCC_API_URL=${server.url}`,
        `OCC_API_KEY=${apiKey}`,
        `KUBECONFIG=${cluster.kubeconfigs.admin}`,
        "",
      ].join("\n"),
      { mode: 0o600 },
    );
    return {
      apiUrl: server.url,
      apiKeyFile,
      devEnvFile,
      logFile,
      administratorName: "admin",
      passwordFile: signIn.passwordFile,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
