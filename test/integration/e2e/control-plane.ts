import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { createTestDatabase } from "../../harness/db.js";
import { occ, startOcc, type OccProcess } from "./processes.js";

/** An API and a worker running as separate `occ` processes on a fresh database. */
export interface ControlPlane {
  readonly dir: string;
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly apiKeyFile: string;
  readonly workerMetricsUrl: string;
  /** `--database-url` and `--config` as the processes were started with. */
  readonly common: readonly string[];
  stop(): Promise<void>;
}

/**
 * Migrates and bootstraps a fresh PostgreSQL database with the real CLI, then starts
 * `occ api` and `occ worker` (the worker as the `occ-worker` identity) and waits until both
 * announce themselves.
 */
export async function startControlPlane(): Promise<ControlPlane> {
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
      `kubernetes:\n  kubeconfig: ${inject("env").kubeconfigs["occ-worker"]}\nworker:\n  concurrency: 2\n`,
    );
    const common = ["--database-url", database.url, "--config", config];
    occ(["migrate", "--database-url", database.url]);
    const apiKeyFile = join(dir, "key");
    occ(["bootstrap", ...common, "--api-key-file", apiKeyFile]);
    const apiKey = (await readFile(apiKeyFile, "utf8")).trim();
    const api = await startOcc(["api", ...common, "--port", "0"], /listening on (http:\/\/\S+)/);
    processes.push(api);
    const worker = await startOcc(
      ["worker", ...common, "--metrics-port", "0"],
      /"metrics":"(http:\/\/[^"]+\/metrics)"/,
    );
    processes.push(worker);
    return {
      dir,
      apiUrl: api.match[1] ?? "",
      apiKey,
      apiKeyFile,
      workerMetricsUrl: worker.match[1] ?? "",
      common,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
