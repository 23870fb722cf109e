import { join } from "node:path";
import type { Command } from "commander";
import { defaultBinDir } from "../devcluster/local-cluster.js";
import { loadInstallationConfig } from "../config/installation-config.js";
import { untilStopSignal } from "./signals.js";

/** `occ dev up`: the embedded environment in one process (see `startDevEnvironment`). */
export function registerDevCommand(program: Command): void {
  const dev = program.command("dev").description("the embedded development environment");
  dev
    .command("up")
    .description("start a local cluster, PGlite, the API and the worker in this process")
    .option("--state-dir <dir>", "where all state is kept (a restart resumes)", ".occ/dev")
    .option("--port <port>", "API port (0 picks a free one)", "8080")
    .option("--config <file>", "Installation configuration YAML (default: $OCC_CONFIG_PATH)")
    .action(async (opts: { stateDir: string; port: string; config?: string }) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        throw new Error(`--port must be an integer between 0 and 65535, not ${opts.port}`);
      }
      const config = await loadInstallationConfig(opts.config ?? process.env.OCC_CONFIG_PATH);
      // Loaded here, not with the CLI: `occ api`, `occ worker` and the other commands never
      // load the embedded environment or PGlite.
      const { startDevEnvironment } = await import("../main/dev-environment.js");
      const env = await startDevEnvironment({
        stateDir: opts.stateDir,
        config,
        port,
        say: (line) => {
          console.log(line);
        },
      });
      console.log(
        [
          "",
          `OCC is up: ${env.apiUrl}`,
          `  administrator API key: ${env.apiKeyFile}`,
          `  console: ${env.apiUrl}/console/ (sign in as user ${env.administratorName}, password in ${env.passwordFile})`,
          `  CLI sign-in: user ${env.administratorName}, password in ${env.passwordFile}`,
          `    occ login --server ${env.apiUrl} --user ${env.administratorName} --password-file ${env.passwordFile}`,
          `  environment for scripts: ${env.devEnvFile} (OCC_API_URL, OCC_API_KEY, KUBECONFIG)`,
          `  logs: ${env.logFile}`,
          "",
          "Try:",
          `  set -a; . ${env.devEnvFile}; set +a`,
          `  curl -s -H "Authorization: Bearer $OCC_API_KEY" -H 'content-type: application/json' \\`,
          `    -d '{"name":"support"}' $OCC_API_URL/namespaces`,
          `  ${join(defaultBinDir(), "kubectl")} get namespaces -l openclaw.dev/namespace`,
          "",
          "Ctrl-C stops everything, the cluster included.",
        ].join("\n"),
      );
      const sig = await untilStopSignal();
      console.log(`${sig}: stopping…`);
      await env.stop();
      console.log("stopped");
    });
}
