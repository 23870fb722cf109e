/**
 * `--values`, `--release-namespace` and `--chart` for the commands that need the Installation
 * configuration the chart will render (`occ preprovisioned …`): given the values file
 * `helm install -f` takes, the configuration is derived exactly as the chart renders it; else
 * `--config` (or `$OCC_CONFIG_PATH`) is read as before. Giving both is refused: two sources of
 * one configuration could disagree.
 */
import type { Command } from "commander";
import { installationConfigFromValues, loadChartValues } from "../config/chart-values.js";
import { loadInstallationConfig, type InstallationConfig } from "../config/installation-config.js";
import { fieldOf } from "../domain/input/unknowns.js";

export interface ValuesOptions {
  config?: string;
  values?: string;
  releaseNamespace?: string;
  chart?: string;
}

/** Adds `--values`, `--release-namespace` and `--chart`. */
export function withValuesOptions(cmd: Command): Command {
  return cmd
    .option(
      "-f, --values <file>",
      "the Helm values file `helm install -f` takes: the configuration is derived from it as the chart renders it",
    )
    .option(
      "-n, --release-namespace <ns>",
      "with --values: the namespace `helm install -n` installs the release in",
    )
    .option("--chart <dir>", "with --values: the chart directory (default: the bundled chart)");
}

/** The configuration from `--values` (as the chart renders it) or `--config`. */
export async function configFromOptions(opts: ValuesOptions): Promise<InstallationConfig> {
  if (opts.values === undefined) {
    if (opts.releaseNamespace !== undefined || opts.chart !== undefined) {
      throw new Error("--release-namespace and --chart go with --values");
    }
    return loadInstallationConfig(opts.config ?? process.env.OCC_CONFIG_PATH);
  }
  if (opts.config !== undefined) {
    throw new Error("give --values or --config, not both");
  }
  if (opts.releaseNamespace === undefined || opts.releaseNamespace === "") {
    throw new Error(
      "--values needs --release-namespace: the namespace `helm install -n` will use (the chart renders it into the configuration)",
    );
  }
  return installationConfigFromValues({
    valuesFile: opts.values,
    releaseNamespace: opts.releaseNamespace,
    ...(opts.chart !== undefined ? { chartDir: opts.chart } : {}),
  });
}

/**
 * Why a configuration without `network.gatewayRouting` cannot render a preprovisioned
 * namespace, and the fix, in the terms of where the configuration came from: a values key with
 * `--values`, the configuration file's key with `--config`, and both ways to give one when none
 * was given.
 */
export function missingGatewayRouting(opts: ValuesOptions): string {
  const why =
    "the preprovisioned namespace's gateway membership label derives from gateway routing";
  if (opts.values !== undefined) {
    return `${why}, which is off in ${opts.values} (over the chart's defaults): set gatewayRouting.enabled: true (the chart refuses preprovisionedNamespace without it)`;
  }
  const file = opts.config ?? process.env.OCC_CONFIG_PATH;
  if (file === undefined || file === "") {
    return `${why}, and no configuration was given: pass --values my-values.yaml -n <release-ns> (the values file helm install takes) or --config installation.yaml`;
  }
  return `${why}: network.gatewayRouting is not set in ${file}; set it, or pass --values my-values.yaml -n <release-ns> (the values file helm install takes) instead of --config`;
}

/**
 * The chart's ServiceAccounts (`<release ns>/<api|worker.serviceAccountName>`) with
 * `--values`; without it, `<controllerNamespace>/occ-worker` and `/occ-api`.
 */
export async function serviceAccountDefaults(
  opts: ValuesOptions,
  config: InstallationConfig,
): Promise<{ worker: string; api: string }> {
  const ns = config.kubernetes.controllerNamespace;
  if (opts.values === undefined || opts.releaseNamespace === undefined) {
    return { worker: `${ns}/occ-worker`, api: `${ns}/occ-api` };
  }
  const values = await loadChartValues({
    valuesFile: opts.values,
    releaseNamespace: opts.releaseNamespace,
    ...(opts.chart !== undefined ? { chartDir: opts.chart } : {}),
  });
  const name = (component: "api" | "worker", fallback: string): string => {
    const section = values[component];
    const v = fieldOf(section, "serviceAccountName");
    return typeof v === "string" && v !== "" ? v : fallback;
  };
  return {
    worker: `${ns}/${name("worker", "occ-worker")}`,
    api: `${ns}/${name("api", "occ-api")}`,
  };
}
