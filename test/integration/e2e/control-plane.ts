import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
import type { Db } from "../../../src/store/db.js";
import { openPostgres } from "../../../src/store/pg-db.js";
import { createTestDatabase } from "../../harness/db.js";
import { occ, startOcc, type OccProcess } from "../../harness/occ.js";
import { grantChartClusterRoles } from "../../harness/rbac.js";

/**
 * An API and a worker (or several of each: {@link ControlPlaneOptions.apis} / `workers`)
 * running as separate `occ` processes on a fresh database. The first of each is "the" API and
 * "the" worker of the single-process fields.
 */
export interface ControlPlane {
  readonly dir: string;
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly apiKeyFile: string;
  /** The database the processes use. */
  readonly databaseUrl: string;
  /** Every line `occ api` wrote to stdout and stderr (its log). */
  readonly apiOutput: readonly string[];
  /** The current worker's metrics URL (it changes when the worker is restarted). */
  readonly workerMetricsUrl: string;
  /** The control plane's database, for reading back what the processes stored. */
  readonly db: Db;
  /** `--database-url` and `--config` as the processes were started with. */
  readonly common: readonly string[];
  /** What the current worker process printed so far (for a failing test's message). */
  readonly workerOutput: readonly string[];
  /** Every API's URL, in start order (`apiUrl` is the first). */
  readonly apiUrls: readonly string[];
  /** The current worker processes, by index (`claimed_by` in the queue is `<host>:<pid>`). */
  readonly workers: readonly OccProcess[];
  /** SIGKILLs worker `index` (default 0; no cleanup, its leases simply expire). */
  killWorker(index?: number): Promise<void>;
  /**
   * Starts a new worker process in place of worker `index` (after {@link killWorker}), or as
   * one more worker when `index` is the number of workers.
   */
  startWorker(index?: number): Promise<void>;
  /**
   * Stops every API and worker (SIGTERM, waiting for each exit), runs `whileDown` (e.g. a
   * database restore), and starts as many again on the same database; the URLs change.
   */
  restart(whileDown: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  /** Extra Installation configuration YAML, appended to the file (e.g. a `worker:` block). */
  readonly workerConfig?: {
    readonly leaseSeconds?: number;
    readonly concurrency?: number;
    readonly resyncSeconds?: number;
    readonly convergenceDeadlineSeconds?: number;
  };
  /** The worker's kubeconfig; default the shared cluster's `occ-worker` identity. */
  readonly kubeconfig?: string;
  /**
   * Worker `i`'s own kubeconfig (e.g. through a fault proxy), in place of `kubeconfig`; also for
   * a worker added later with `startWorker(i)`.
   */
  readonly workerKubeconfigs?: readonly (string | undefined)[];
  /**
   * The API's own kubeconfig (e.g. the shared cluster's `occ-api` identity, holding the chart's
   * API role), in a configuration file of its own; default the worker's.
   */
  readonly apiKubeconfig?: string;
  /** More lines of the `kubernetes:` block (indented two spaces), for every process. */
  readonly kubernetesConfig?: string;
  /** How many `occ api` / `occ worker` processes (default 1 each). */
  readonly apis?: number;
  readonly workers?: number;
  /** The maintenance URL of the server to create the database on (default: the run's). */
  readonly adminDatabaseUrl?: string;
  /**
   * The URL the processes (and `db`) use, from the created database's single-host URL (e.g. a
   * multi-host URL naming a standby too); default that URL itself.
   */
  readonly processDatabaseUrl?: (created: string) => string;
  /** More Installation configuration YAML (top-level keys), appended to every process's file. */
  readonly extraConfig?: string;
  /**
   * `occ api` and `occ worker` from another release's executable (the previous release's
   * `app/bin/occ.js`, test/harness/previous-release.ts); `occ migrate` and `occ bootstrap` stay
   * this tree's, as when an upgrade's init Job has run and the old pods still serve.
   */
  readonly processEntry?: string;
}

/**
 * Migrates and bootstraps a fresh PostgreSQL database with the real CLI, then starts
 * `occ api` and `occ worker` (the worker as the `occ-worker` identity) and waits until both
 * announce themselves.
 */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const dir = await mkdtemp(join(tmpdir(), "occ-e2e-"));
  const database = await createTestDatabase(
    opts.adminDatabaseUrl === undefined ? {} : { adminUrl: opts.adminDatabaseUrl },
  );
  const processes: OccProcess[] = [];
  const databaseUrl = opts.processDatabaseUrl?.(database.url) ?? database.url;
  const db = databaseUrl === database.url ? database.db : openPostgres(databaseUrl);
  const stop = async () => {
    // Every process is stopped and the database dropped even when one did not exit in time.
    const late = await Promise.allSettled(processes.map((p) => p.stop()));
    if (db !== database.db) await db.close();
    await database.drop();
    await rm(dir, { recursive: true, force: true });
    const failed = late.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  };
  try {
    const writeConfig = async (file: string, kubeconfig: string | undefined) => {
      await writeFile(
        file,
        `kubernetes:\n  kubeconfig: ${kubeconfig ?? opts.kubeconfig ?? inject("env").kubeconfigs["occ-worker"]}\n` +
          (opts.kubernetesConfig ?? "") +
          `worker:\n  concurrency: ${opts.workerConfig?.concurrency ?? 2}\n` +
          (["leaseSeconds", "resyncSeconds", "convergenceDeadlineSeconds"] as const)
            .map((key) => {
              const value = opts.workerConfig?.[key];
              return value === undefined ? "" : `  ${key}: ${value}\n`;
            })
            .join("") +
          (opts.extraConfig ?? ""),
      );
      return file;
    };
    const config = await writeConfig(join(dir, "config.yaml"), undefined);
    const common = ["--database-url", databaseUrl, "--config", config];
    occ(["migrate", "--database-url", databaseUrl]);
    const apiKeyFile = join(dir, "key");
    occ(["bootstrap", ...common, "--api-key-file", apiKeyFile]);
    const apiKey = (await readFile(apiKeyFile, "utf8")).trim();
    const entry = opts.processEntry === undefined ? {} : { entry: opts.processEntry };
    const apis: (OccProcess & { match: RegExpMatchArray })[] = [];
    const apiArgs =
      opts.apiKubeconfig === undefined
        ? common
        : [
            "--database-url",
            databaseUrl,
            "--config",
            await writeConfig(join(dir, "config-api.yaml"), opts.apiKubeconfig),
          ];
    const launchApi = async () => {
      const started = await startOcc(
        ["api", ...apiArgs, "--port", "0"],
        /listening on (http:\/\/\S+)/,
        entry,
      );
      processes.push(started);
      return started;
    };
    for (let i = 0; i < (opts.apis ?? 1); i++) apis.push(await launchApi());
    const launchWorker = async (index: number) => {
      const own = opts.workerKubeconfigs?.[index];
      const args =
        own === undefined
          ? common
          : [
              "--database-url",
              databaseUrl,
              "--config",
              await writeConfig(join(dir, `config-${index}.yaml`), own),
            ];
      const started = await startOcc(
        ["worker", ...args, "--metrics-port", "0"],
        /"metrics":"(http:\/\/[^"]+\/metrics)"/,
        entry,
      );
      processes.push(started);
      return started;
    };
    const workers: (OccProcess & { match: RegExpMatchArray })[] = [];
    for (let i = 0; i < (opts.workers ?? 1); i++) workers.push(await launchWorker(i));
    const worker = (index: number) => {
      const found = workers[index];
      if (found === undefined) throw new Error(`no worker ${index}`);
      return found;
    };
    const api = () => {
      const first = apis[0];
      if (first === undefined) throw new Error("at least one API process is needed");
      return first;
    };
    api();
    return {
      dir,
      get apiUrl() {
        return api().match[1] ?? "";
      },
      get apiUrls() {
        return apis.map((a) => a.match[1] ?? "");
      },
      apiKey,
      apiKeyFile,
      databaseUrl,
      get apiOutput() {
        return api().output;
      },
      db,
      get workerMetricsUrl() {
        return worker(0).match[1] ?? "";
      },
      get workerOutput() {
        return worker(0).output;
      },
      get workers() {
        return [...workers];
      },
      common,
      killWorker: (index = 0) => worker(index).kill(),
      async startWorker(index = 0) {
        if (index !== workers.length) worker(index);
        workers[index] = await launchWorker(index);
      },
      async restart(whileDown) {
        await Promise.all([...apis, ...workers].map((p) => p.stop()));
        await whileDown();
        for (let i = 0; i < apis.length; i++) apis[i] = await launchApi();
        for (let i = 0; i < workers.length; i++) workers[i] = await launchWorker(i);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Registers a file's setup: the chart's ClusterRoles granted, one control plane started with
 * `options` (handed to `started`, where the file keeps it) and stopped after the file.
 */
export function controlPlaneForFile(
  options: ControlPlaneOptions,
  started: (plane: ControlPlane) => void,
): void {
  let plane: ControlPlane | undefined;
  beforeAll(async () => {
    await grantChartClusterRoles();
    plane = await startControlPlane(options);
    started(plane);
  }, 120_000);
  afterAll(async () => {
    await plane?.stop();
  });
}
