/**
 * `occ preprovisioned render | verify | values` (preprovisioned.md §7): the operator's tools
 * for the preprovisioned profile, built on exactly the functions the controller runs.
 *
 * - `render --namespace-id ns_…`: the Namespace, the worker's and API's RoleBindings and the
 *   declared OpenShell resources, as YAML for `kubectl apply -f -`;
 * - `verify`: the controller's checks, read-only; prints every failing requirement with its
 *   fix; exit code 0 only when adoption would pass;
 * - `values --namespace-id ns_…`: reads the namespace's UID and prints the Helm values block.
 */
import type { Command } from "commander";
import { stringify } from "yaml";
import type { InstallationConfig } from "../config/installation-config.js";
import {
  currentManagedName,
  parsePreprovisionedBinding,
  parsePreprovisionedNamespaceId,
  type NamespaceId,
  type PreprovisionedBinding,
} from "../domain/index.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../drivers/kubernetes/client/index.js";
import type { RbacSubject } from "../drivers/kubernetes/rbac-objects.js";
import { preprovisionedBindingFromEnv } from "../services/preprovisioned/startup.js";
import { renderPreprovisionedYaml } from "../drivers/preprovisioned-render.js";
import { openVerifyOptions, type VerifyFlags } from "../main/preprovisioned-verify.js";
import { verifyPreprovisioned } from "../services/preprovisioned/verify.js";
import { preprovisionedClusterOf } from "../drivers/preprovisioned-cluster.js";
import {
  configFromOptions,
  missingGatewayRouting,
  serviceAccountDefaults,
  withValuesOptions,
  type ValuesOptions,
} from "./values-options.js";

interface ClusterOptions extends ValuesOptions {
  kubeconfig?: string;
}

function withClusterOptions(cmd: Command): Command {
  return withValuesOptions(
    cmd.option("--config <file>", "Installation configuration YAML (default: $OCC_CONFIG_PATH)"),
  ).option("--kubeconfig <file>", "kubeconfig (default: kubernetes.kubeconfig, then $KUBECONFIG)");
}

const loadConfig = configFromOptions;

function clientFor(opts: ClusterOptions, config: InstallationConfig): ObjectClient {
  return createObjectClient(loadKubeConfig(opts.kubeconfig ?? config.kubernetes.kubeconfig), {
    timeoutMs: config.kubernetes.requestTimeoutMs,
  });
}

function namespaceIdOf(value: string): NamespaceId {
  const parsed = parsePreprovisionedNamespaceId(value);
  if (!parsed.ok) throw new Error(`--namespace-id: ${parsed.error}`);
  return parsed.value;
}

/** `namespace/name` of a ServiceAccount. */
function serviceAccountOf(value: string, flag: string): RbacSubject {
  const [namespace, name, ...rest] = value.split("/");
  if (
    namespace === undefined ||
    name === undefined ||
    namespace === "" ||
    name === "" ||
    rest.length > 0
  ) {
    throw new Error(`${flag} must be <namespace>/<serviceaccount>`);
  }
  return { kind: "ServiceAccount", name, namespace };
}

/** The binding from `--namespace-id` and `--uid`, else from $OCC_PREPROVISIONED_NAMESPACE. */
function bindingOf(opts: { namespaceId?: string; uid?: string }): PreprovisionedBinding {
  if (opts.namespaceId !== undefined || opts.uid !== undefined) {
    const parsed = parsePreprovisionedBinding(
      JSON.stringify({ namespaceId: opts.namespaceId, uid: opts.uid }),
    );
    if (!parsed.ok) throw new Error(parsed.error.map((p) => p.message).join("; "));
    return parsed.value;
  }
  const fromEnv = preprovisionedBindingFromEnv(process.env);
  if (fromEnv === null) {
    throw new Error("give --namespace-id and --uid, or set OCC_PREPROVISIONED_NAMESPACE");
  }
  return fromEnv;
}

export function registerPreprovisionedCommands(program: Command): void {
  const group = program
    .command("preprovisioned")
    .description("prepare, verify and bind the preprovisioned namespace (operator tools)");

  withValuesOptions(
    group
      .command("render")
      .description("print the namespace, its RoleBindings and the OpenShell resources as YAML")
      .requiredOption("--namespace-id <id>", "the platform Namespace ID to bind (ns_…)")
      .option("--config <file>", "Installation configuration YAML (default: $OCC_CONFIG_PATH)"),
  )
    .option(
      "--worker-service-account <ns/name>",
      "the worker's ServiceAccount (default: the chart's, <controllerNamespace>/occ-worker)",
    )
    .option(
      "--api-service-account <ns/name>",
      "the API's ServiceAccount (default: the chart's, <controllerNamespace>/occ-api)",
    )
    .action(
      async (
        opts: ValuesOptions & {
          namespaceId: string;
          workerServiceAccount?: string;
          apiServiceAccount?: string;
        },
      ) => {
        const config = await loadConfig(opts);
        if (config.compute.gatewayRouting === null) throw new Error(missingGatewayRouting(opts));
        const defaults = await serviceAccountDefaults(opts, config);
        process.stdout.write(
          renderPreprovisionedYaml({
            namespaceId: namespaceIdOf(opts.namespaceId),
            config,
            worker: serviceAccountOf(
              opts.workerServiceAccount ?? defaults.worker,
              "--worker-service-account",
            ),
            api: serviceAccountOf(opts.apiServiceAccount ?? defaults.api, "--api-service-account"),
          }),
        );
      },
    );

  withClusterOptions(
    group
      .command("verify")
      .description("run the controller's checks read-only; exit 0 only when adoption would pass")
      .option(
        "--namespace-id <id>",
        "the bound Namespace ID (default: from $OCC_PREPROVISIONED_NAMESPACE)",
      )
      .option(
        "--uid <uid>",
        "the bound namespace UID (default: from $OCC_PREPROVISIONED_NAMESPACE)",
      )
      .option(
        "--api-kubeconfig <file>",
        "the API's kubeconfig, to check its tenant role (default: kubernetes.apiKubeconfig)",
      )
      .option("--database-url <url>", "PostgreSQL, to read the Agents (default: $OCC_DATABASE_URL)")
      .option("--pglite <dir>", "embedded PGlite data folder instead of PostgreSQL"),
  ).action(async (opts: ClusterOptions & VerifyFlags & { namespaceId?: string; uid?: string }) => {
    const binding = bindingOf(opts);
    const config = await loadConfig(opts);
    const client = clientFor(opts, config);
    const extra = await openVerifyOptions(opts, config);
    try {
      const failures = await verifyPreprovisioned(
        preprovisionedClusterOf(client),
        config,
        binding,
        extra.options,
      );
      const name = currentManagedName(binding.namespaceId);
      if (failures.length === 0) {
        console.log(`namespace ${name} passes every check: adoption would pass`);
        return;
      }
      console.log(`namespace ${name}: ${failures.length} failing requirement(s)`);
      for (const f of failures) {
        console.log(`  ✗ ${f.requirement}\n      fix: ${f.fix.replace(/\n/g, "\n        ")}`);
      }
      process.exitCode = 1;
    } finally {
      client.close();
      await extra.close();
    }
  });

  withClusterOptions(
    group
      .command("values")
      .description("read the created namespace's UID and print the Helm values block")
      .requiredOption("--namespace-id <id>", "the platform Namespace ID (ns_…)"),
  ).action(async (opts: ClusterOptions & { namespaceId: string }) => {
    const namespaceId = namespaceIdOf(opts.namespaceId);
    const config = await loadConfig(opts);
    const client = clientFor(opts, config);
    try {
      const name = currentManagedName(namespaceId);
      const namespace = await client.find("Namespace", { name });
      const uid = namespace?.metadata.uid;
      if (uid === undefined)
        throw new Error(
          `namespace ${name} does not exist; create it first (occ preprovisioned render)`,
        );
      process.stdout.write(stringify({ preprovisionedNamespace: { namespaceId, uid } }));
    } finally {
      client.close();
    }
  });
}
