import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { collectDefaultMetrics, Registry } from "prom-client";
import { createLogger, flushLogger, flushLoggerSync } from "../main/logger.js";
import { registerControlPlaneMetrics, type ControlPlaneMetrics } from "../main/metrics.js";
import { startMetricsServer } from "../main/metrics-server.js";
import { workerQueues } from "../work/queues.js";
import { runBootstrap, startApiProcess, startWorkerProcess } from "../main/processes.js";
import {
  ConfigurationError,
  loadInstallationConfig,
  type InstallationConfig,
} from "../config/installation-config.js";
import { openDatabase } from "../main/database.js";
import { startupProfile } from "../services/preprovisioned/startup.js";
import { ping, type Db } from "../store/db.js";
import { requiredSchema, requireSchema } from "../store/schema-version.js";
import {
  reportWorkerRefusal,
  startWorkerHeartbeat,
  workerIdOf,
  workerRefusalOf,
  type WorkerStartupCheck,
} from "../main/worker-status.js";
import type { Logger } from "pino";
import { openFromOptions, withCommonOptions, type CommonOptions } from "./common-options.js";
import { armShutdownDeadline, untilStopSignal } from "./signals.js";
import { passwordFromFile } from "./password-input.js";
import { PASSWORD_MIN_LENGTH } from "../contract/auth.js";

/**
 * A long-running process's command: the common options and the address it listens on,
 * `--<prefix>host` (loopback by default) and `--<prefix>port`.
 */
function processCommand(
  program: Command,
  name: string,
  description: string,
  listen: { readonly prefix: string; readonly what: string; readonly port: string },
): Command {
  return withCommonOptions(
    program
      .command(name)
      .description(description)
      .option(`--${listen.prefix}host <host>`, `address ${listen.what}`, "127.0.0.1")
      .option(`--${listen.prefix}port <port>`, `port ${listen.what}`, listen.port),
  );
}

/** `occ bootstrap`, `occ api` and `occ worker`: one binary, separate processes. */
export function registerProcessCommands(program: Command): void {
  withCommonOptions(
    program
      .command("bootstrap")
      .description("create the Installation, the administrator and its API key (idempotent)")
      .option("--api-key-file <file>", "write the administrator's new API key here (mode 0600)")
      .option(
        "--admin-password-file <file>",
        "set the administrator's (recovery account's) password from this file (- for standard input)",
      ),
  ).action(async (opts: CommonOptions & { apiKeyFile?: string; adminPasswordFile?: string }) => {
    const password =
      opts.adminPasswordFile === undefined
        ? undefined
        : await passwordFromFile(opts.adminPasswordFile, "--admin-password-file");
    if (password !== undefined && password.length < PASSWORD_MIN_LENGTH) {
      throw new Error(
        `--admin-password-file: the password needs at least ${PASSWORD_MIN_LENGTH} characters`,
      );
    }
    const { db, config } = await openFromOptions(opts);
    try {
      const result = await runBootstrap(
        db,
        config,
        password === undefined ? {} : { administratorPassword: password },
      );
      if (password !== undefined) {
        console.error(`administrator password set (${result.administratorId}); its sessions ended`);
      }
      if (result.apiKey === null) {
        console.log("already bootstrapped: the administrator's API key was issued earlier");
      } else if (opts.apiKeyFile !== undefined) {
        await writeFile(opts.apiKeyFile, `${result.apiKey}\n`, { mode: 0o600 });
        console.log(`administrator API key written to ${opts.apiKeyFile} (shown only once)`);
      } else {
        console.log(result.apiKey);
      }
      // On stderr, so `KEY=$(occ bootstrap)` still captures only the key.
      const def = result.defaultNamespace;
      console.error(
        def.state === "retired"
          ? `default Namespace: ${def.id} (retired: deleted earlier, not recreated)`
          : `default Namespace: ${def.id} (${def.state}); to bind a preprovisioned namespace to it: ` +
              `occ preprovisioned render --namespace-id ${def.id}`,
      );
    } finally {
      await db.close();
    }
  });

  processCommand(program, "api", "serve the OCC HTTP API", {
    prefix: "",
    what: "to bind",
    port: "8080",
  }).action(async (opts: CommonOptions & { host: string; port: string }) => {
    const { db, config } = await openChecked(opts);
    const schema = await requiredSchema();
    await requireSchema(db, schema).catch(async (err: unknown) => {
      await db.close();
      throw err;
    });
    const logger = createLogger("occ-api");
    const { registry, metrics } = processMetrics(db, config);
    const server = await startApiProcess({
      db,
      config,
      metrics,
      host: opts.host,
      port: parsePort(opts.port, "--port"),
      logger,
      registry,
      schema,
    });
    console.log(`occ api listening on ${server.url}`);
    const signal = await untilStopSignal();
    armShutdownDeadline(deadlineReport(logger));
    await server.close();
    await db.close();
    // The log is written asynchronously: the last request lines may still be buffered.
    logger.info({ signal }, "api stopped");
    await flushLogger(logger);
  });

  processCommand(program, "worker", "claim queued work and run the Drivers", {
    prefix: "metrics-",
    what: "of the worker's /metrics endpoint",
    port: "9091",
  }).action(async (opts: CommonOptions & { metricsHost: string; metricsPort: string }) => {
    const logger = createLogger("occ-worker");
    const { db, config } = await openWorkerChecked(opts, logger);
    const workerId = workerIdOf();
    const { registry, metrics } = processMetrics(db, config);
    const server = await startMetricsServer(
      registry,
      opts.metricsHost,
      parsePort(opts.metricsPort, "--metrics-port"),
      { ready: () => ping(db) },
    );
    const worker = await startWorkerProcess({ db, config, logger, metrics }).catch(
      async (err: unknown) => {
        // A refused startup (e.g. the preprovisioned namespace does not verify) ends the
        // process: record why for `occ status`, release what keeps it alive, then report.
        await reportWorkerRefusal(db, workerId, workerRefusalOf("drivers", err), logger);
        await server.close();
        await db.close();
        throw err;
      },
    );
    const heartbeat = await startWorkerHeartbeat(db, workerId, logger);
    logger.info({ metrics: `${server.url}/metrics`, workerId }, "worker metrics served");
    const signal = await untilStopSignal();
    armShutdownDeadline(deadlineReport(logger));
    await worker.stop();
    await heartbeat.stop();
    await server.close();
    await db.close();
    logger.info({ signal }, "worker process stopped");
    await flushLogger(logger);
  });
}

/**
 * The configuration, checked for the process's profile (preprovisioned.md §2) BEFORE the
 * database is opened, so a refused startup stops at once with its message; then the database.
 */
async function openChecked(opts: CommonOptions): Promise<{ db: Db; config: InstallationConfig }> {
  const config = await loadInstallationConfig(opts.config ?? process.env.OCC_CONFIG_PATH);
  startupProfile(config, process.env);
  const db = await openDatabase({ databaseUrl: opts.databaseUrl, pgliteDir: opts.pglite });
  return { db, config };
}

/**
 * The worker's {@link openChecked}: the same checks, then the schema — but each refusal is
 * also recorded in the database (when it can be reached) so the API and `occ status` show it.
 */
async function openWorkerChecked(
  opts: CommonOptions,
  logger: Logger,
): Promise<{ db: Db; config: InstallationConfig }> {
  const db = await openDatabase({ databaseUrl: opts.databaseUrl, pgliteDir: opts.pglite });
  const refuse = async (check: WorkerStartupCheck, err: unknown): Promise<never> => {
    await reportWorkerRefusal(db, workerIdOf(), workerRefusalOf(check, err), logger);
    await db.close();
    throw err;
  };
  const config = await loadInstallationConfig(opts.config ?? process.env.OCC_CONFIG_PATH).catch(
    (err: unknown) => refuse("configuration", err),
  );
  try {
    startupProfile(config, process.env);
  } catch (err) {
    return refuse(err instanceof ConfigurationError ? "configuration" : "profile", err);
  }
  await requireSchema(db, await requiredSchema()).catch((err: unknown) =>
    refuse("schema-version", err),
  );
  return { db, config };
}

/** What a process logs when its stop overran the deadline: what still kept it alive. */
/** The registry of an `occ api` or `occ worker` process: Node.js's metrics and the control plane's. */
function processMetrics(
  db: Db,
  config: InstallationConfig,
): { readonly registry: Registry; readonly metrics: ControlPlaneMetrics } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = registerControlPlaneMetrics(registry, db, workerQueues(config), {
    preprovisionedNamespaceId: startupProfile(config, process.env)?.namespaceId,
  });
  return { registry, metrics };
}

function deadlineReport(logger: Logger): (activeResources: readonly string[]) => void {
  return (activeResources) => {
    logger.error({ activeResources }, "shutdown deadline passed");
    flushLoggerSync(logger);
  };
}

function parsePort(value: string, flag: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`${flag} must be an integer between 0 and 65535, not ${value}`);
  }
  return port;
}
