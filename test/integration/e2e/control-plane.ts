import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import type { Db } from "../../../src/store/db.js";
import { createTestDatabase } from "../../harness/db.js";
import { occ, startOcc, type OccProcess } from "../../harness/occ.js";

/**
 * One request to the API as the bootstrap administrator: the status and the parsed body,
 * which each test types by the shape it asserts.
 */
export async function callApi(
  plane: Pick<ControlPlane, "apiUrl" | "apiKey">,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${plane.apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${plane.apiKey}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

/** An API and a worker running as separate `occ` processes on a fresh database. */
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
  /** SIGKILLs the worker process (no cleanup, its leases simply expire). */
  killWorker(): Promise<void>;
  /** Starts a new worker process (after {@link killWorker}). */
  startWorker(): Promise<void>;
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
}

/**
 * Migrates and bootstraps a fresh PostgreSQL database with the real CLI, then starts
 * `occ api` and `occ worker` (the worker as the `occ-worker` identity) and waits until both
 * announce themselves.
 */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const dir = await mkdtemp(join(tmpdir(), "occ-e2e-"));
  const database = await createTestDatabase();
  const processes: OccProcess[] = [];
  const stop = async () => {
    for (const p of processes) await p.stop();
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const config = join(dir, "config.yaml");
    await writeFile(
      config,
      `kubernetes:\n  kubeconfig: ${opts.kubeconfig ?? inject("env").kubeconfigs["occ-worker"]}\n` +
        `worker:\n  concurrency: ${opts.workerConfig?.concurrency ?? 2}\n` +
        (["leaseSeconds", "resyncSeconds", "convergenceDeadlineSeconds"] as const)
          .map((key) => {
            const value = opts.workerConfig?.[key];
            return value === undefined ? "" : `  ${key}: ${value}\n`;
          })
          .join(""),
    );
    const common = ["--database-url", database.url, "--config", config];
    occ(["migrate", "--database-url", database.url]);
    const apiKeyFile = join(dir, "key");
    occ(["bootstrap", ...common, "--api-key-file", apiKeyFile]);
    const apiKey = (await readFile(apiKeyFile, "utf8")).trim();
    const api = await startOcc(["api", ...common, "--port", "0"], /listening on (http:\/\/\S+)/);
    processes.push(api);
    const launchWorker = () =>
      startOcc(
        ["worker", ...common, "--metrics-port", "0"],
        /"metrics":"(http:\/\/[^"]+\/metrics)"/,
      );
    let worker = await launchWorker();
    processes.push(worker);
    return {
      dir,
      apiUrl: api.match[1] ?? "",
      apiKey,
      apiKeyFile,
      databaseUrl: database.url,
      apiOutput: api.output,
      db: database.db,
      get workerMetricsUrl() {
        return worker.match[1] ?? "";
      },
      get workerOutput() {
        return worker.output;
      },
      common,
      killWorker: () => worker.kill(),
      async startWorker() {
        worker = await launchWorker();
        processes.push(worker);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
