/**
 * The whole production shape on one machine, for the R5 model (test/model): a cluster of its own
 * (etcd, kube-apiserver, kube-controller-manager) with the chart's cluster RBAC, a PostgreSQL of
 * its own, and `occ api` ×2 and `occ worker` ×2 as separate processes sharing one database —
 * plus the faults production sees: a process SIGKILLed and restarted, PostgreSQL restarted,
 * PostgreSQL failed over (a primary with a synchronous streaming standby; the processes use the
 * multi-host URL), kube-apiserver restarted. The cluster and the database are private to the stack because
 * restarting them would disturb every other test file.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type pg from "pg";
import { startLocalCluster, type LocalCluster } from "../../src/devcluster/local-cluster.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../../src/drivers/kubernetes/client/index.js";
import { chartClusterRbac, createMissing } from "../../src/drivers/kubernetes/rbac-objects.js";
import { occ, startOcc, type OccProcess } from "./occ.js";
import { makePostgresDirs, runPostgresTool, sqlOnce } from "./postgres.js";
import { startReplicatedPostgres, type ReplicatedPostgres } from "./postgres-replication.js";

export type Role = "api" | "worker";

export interface StackOptions {
  /** Short queue timings so that the stack settles fast (seconds). */
  readonly resyncSeconds?: number;
  readonly leaseSeconds?: number;
  readonly convergenceDeadlineSeconds?: number;
}

export interface Stack {
  readonly dir: string;
  readonly cluster: LocalCluster;
  /** The cluster administrator (the operator in the model). */
  readonly admin: ObjectClient;
  readonly apiKey: string;
  readonly leaseSeconds: number;
  /** The current URL of each API process (a restarted one listens on a new port). */
  apiUrl(index: number): string;
  /** One statement on the control plane's database, on a fresh connection (survives restarts). */
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Processes that exited without the stack stopping them, with their last output. */
  readonly unexpectedExits: readonly string[];
  /** What the processes of `role` printed last (for a failure message). */
  tail(role: Role, lines?: number): string;
  /**
   * SIGKILLs process `index` of `role` (no cleanup) and starts a new one in its place, without
   * waiting for it to be ready (the other process of the role serves meanwhile).
   */
  killAndRestart(role: Role, index: number): Promise<void>;
  /** Resolves once every process restarted by {@link killAndRestart} is ready again. */
  restarted(): Promise<void>;
  /** Restarts the current primary (a fast shutdown; its standby reconnects). */
  restartPostgres(): Promise<void>;
  /** Crashes the primary, promotes the standby and clones a new standby (see the harness). */
  failoverPostgres(): Promise<void>;
  restartApiServer(): Promise<void>;
  /** `pg_dump --format=custom` of the control plane's database (docs/operations.md); its file. */
  backupDatabase(name: string): Promise<string>;
  /**
   * Stops every OCC process, restores `file` with `pg_restore --clean --if-exists` (the
   * documented procedure) and starts the processes again, waiting until they are ready.
   */
  restoreDatabase(file: string, whileStopped?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

interface Slot {
  proc: OccProcess & { readonly match: RegExpMatchArray };
  stopping: boolean;
}

const READY: Record<Role, RegExp> = {
  api: /listening on (http:\/\/\S+)/,
  worker: /"metrics":"(http:\/\/[^"]+\/metrics)"/,
};

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const dir = await mkdtemp(join(tmpdir(), "occ-stack-"));
  // Traversable so that PostgreSQL, running as its own user under root, reaches its folder.
  await chmod(dir, 0o711);
  const leaseSeconds = opts.leaseSeconds ?? 4;
  const started: {
    cluster?: LocalCluster;
    postgres?: ReplicatedPostgres;
    admin?: ObjectClient;
  } = {};
  const slots: Record<Role, Slot[]> = { api: [], worker: [] };
  const unexpectedExits: string[] = [];
  const restarting = new Set<Promise<void>>();
  const stopAll = async () => {
    await Promise.all([...restarting]);
    const procs = [...slots.worker, ...slots.api];
    for (const slot of procs) slot.stopping = true;
    // Everything is stopped even when a process did not exit in time; that is reported after.
    const late = await Promise.allSettled(procs.map((slot) => slot.proc.stop()));
    started.admin?.close();
    await started.cluster?.stop();
    await started.postgres?.stop();
    if (process.env.OCC_KEEP_TEST_DIR === undefined)
      await rm(dir, { recursive: true, force: true });
    const failed = late.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  };
  try {
    const [cluster, postgres] = await Promise.all([
      startLocalCluster({ dir: join(dir, "cluster") }),
      startReplicatedPostgres(join(dir, "postgres"), { synchronous: true }),
    ]);
    started.cluster = cluster;
    started.postgres = postgres;
    const admin = createObjectClient(loadKubeConfig(cluster.kubeconfigs.admin));
    started.admin = admin;
    const user = (name: string) => ({ kind: "User", name }) as const;
    await createMissing(admin, chartClusterRbac(user("occ-worker"), user("occ-api")));

    await sqlOnce(postgres.primary.adminUrl, "CREATE DATABASE occ_model");
    const databaseUrl = postgres.multiHostUrl("occ_model");
    /** The current primary's single-host URL, for the stack's own reads (`pg` takes one host). */
    const primaryUrl = () => {
      const url = new URL(postgres.primary.adminUrl);
      url.pathname = "/occ_model";
      return url.toString();
    };
    const config = join(dir, "config.yaml");
    await writeFile(
      config,
      `kubernetes:\n  kubeconfig: ${cluster.kubeconfigs["occ-worker"]}\n` +
        // As the chart configures it: the worker binds the tenant roles in managed namespaces.
        `  tenantRoleBindings:\n    worker: { kind: User, name: occ-worker }\n` +
        `    api: { kind: User, name: occ-api }\n` +
        `worker:\n  concurrency: 2\n  leaseSeconds: ${leaseSeconds}\n` +
        `  resyncSeconds: ${opts.resyncSeconds ?? 20}\n` +
        `  convergenceDeadlineSeconds: ${opts.convergenceDeadlineSeconds ?? 120}\n`,
    );
    const common = ["--database-url", databaseUrl, "--config", config];
    occ(["migrate", "--database-url", databaseUrl]);
    const keyFile = join(dir, "key");
    occ(["bootstrap", ...common, "--api-key-file", keyFile]);
    const apiKey = (await readFile(keyFile, "utf8")).trim();

    // eslint-disable-next-line prefer-const -- assigned below, used by launch's exit handler
    let replace: (role: Role, old: Slot) => void;
    const launch = async (role: Role): Promise<Slot> => {
      const args = role === "api" ? ["--port", "0"] : ["--metrics-port", "0"];
      const proc = await startOcc([role, ...common, ...args], READY[role]);
      const slot: Slot = { proc, stopping: false };
      void proc.exited.then(() => {
        if (slot.stopping) return;
        unexpectedExits.push(`occ ${role} exited:\n${proc.output.slice(-40).join("\n")}`);
        // Replaced, so that one crash does not fail every later sequence.
        slot.stopping = true;
        replace(role, slot);
      });
      return slot;
    };
    replace = (role: Role, old: Slot) => {
      const next = launch(role).then(
        (slot) => {
          const i = slots[role].indexOf(old);
          if (i >= 0) slots[role][i] = slot;
        },
        (err: unknown) => {
          unexpectedExits.push(`occ ${role} did not start again: ${String(err)}`);
        },
      );
      restarting.add(next);
      void next.finally(() => restarting.delete(next));
    };
    for (const role of ["api", "api", "worker", "worker"] as const) {
      slots[role].push(await launch(role));
    }

    return {
      dir,
      cluster,
      admin,
      apiKey,
      leaseSeconds,
      apiUrl: (index) => slots.api[index % slots.api.length]?.proc.match[1] ?? "",
      query: (sql, params) => sqlOnce(primaryUrl(), sql, params),
      unexpectedExits,
      tail: (role, lines = 10) =>
        slots[role].map((s) => s.proc.output.slice(-lines).join("\n")).join("\n---\n"),
      async killAndRestart(role, index) {
        await Promise.all([...restarting]); // one replacement per slot at a time
        const i = index % slots[role].length;
        const old = slots[role][i];
        if (old === undefined) return;
        old.stopping = true;
        await old.proc.kill();
        replace(role, old);
      },
      async restarted() {
        await Promise.all([...restarting]);
      },
      restartPostgres: () => postgres.primary.restart(),
      failoverPostgres: () => postgres.failover(),
      restartApiServer: () =>
        cluster.restartApiServer(() => new Promise((r) => setTimeout(r, 1_000))),
      backupDatabase(name) {
        const backups = join(dir, "backups");
        makePostgresDirs(backups);
        const file = join(backups, name);
        runPostgresTool("pg_dump", ["--format=custom", "--file", file, primaryUrl()]);
        return Promise.resolve(file);
      },
      async restoreDatabase(file, whileStopped) {
        await Promise.all([...restarting]);
        const old = [...slots.api, ...slots.worker];
        for (const slot of old) slot.stopping = true;
        await Promise.all(old.map((slot) => slot.proc.stop()));
        await whileStopped?.();
        runPostgresTool("pg_restore", [
          "--clean",
          "--if-exists",
          "--single-transaction",
          "--no-owner",
          "--dbname",
          primaryUrl(),
          file,
        ]);
        const [api, worker] = await Promise.all(
          (["api", "worker"] as const).map((role) =>
            Promise.all(slots[role].map(() => launch(role))),
          ),
        );
        slots.api = api ?? [];
        slots.worker = worker ?? [];
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
