import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { createLogger } from "../occ/logger.js";
import { runBootstrap, startApiProcess, startWorkerProcess } from "../occ/processes.js";
import { openFromOptions, withCommonOptions, type CommonOptions } from "./common-options.js";
import { untilStopSignal } from "./signals.js";

/** `occ bootstrap`, `occ api` and `occ worker`: one binary, separate processes. */
export function registerProcessCommands(program: Command): void {
  withCommonOptions(
    program
      .command("bootstrap")
      .description("create the Installation, the administrator and its API key (idempotent)")
      .option("--api-key-file <file>", "write the administrator's new API key here (mode 0600)"),
  ).action(async (opts: CommonOptions & { apiKeyFile?: string }) => {
    const { db, config } = await openFromOptions(opts);
    try {
      const result = await runBootstrap(db, config);
      if (result.apiKey === null) {
        console.log("already bootstrapped: the administrator's API key was issued earlier");
      } else if (opts.apiKeyFile !== undefined) {
        await writeFile(opts.apiKeyFile, `${result.apiKey}\n`, { mode: 0o600 });
        console.log(`administrator API key written to ${opts.apiKeyFile} (shown only once)`);
      } else {
        console.log(result.apiKey);
      }
    } finally {
      await db.close();
    }
  });

  withCommonOptions(
    program
      .command("api")
      .description("serve the OCC HTTP API")
      .option("--host <host>", "address to bind", "127.0.0.1")
      .option("--port <port>", "port to bind", "8080"),
  ).action(async (opts: CommonOptions & { host: string; port: string }) => {
    const { db, config } = await openFromOptions(opts);
    const logger = createLogger("occ-api");
    const server = await startApiProcess({
      db,
      config,
      host: opts.host,
      port: Number(opts.port),
      logger,
    });
    console.log(`occ api listening on ${server.url}`);
    await untilStopSignal();
    await server.close();
    await db.close();
  });

  withCommonOptions(
    program.command("worker").description("claim queued work and run the Drivers"),
  ).action(async (opts: CommonOptions) => {
    const { db, config } = await openFromOptions(opts);
    const logger = createLogger("occ-worker");
    const worker = await startWorkerProcess({ db, config, logger });
    await untilStopSignal();
    await worker.stop();
    await db.close();
  });
}
