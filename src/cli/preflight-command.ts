/**
 * `occ namespaces preflight <k8s-namespace>`: runs the worker's adoption checks read-only
 * against a candidate namespace and prints every failing requirement with its fix. Exit code
 * 0 only when adoption would pass — usable as a gate in an operator's pipeline.
 */
import type { Command } from "commander";
import { loadInstallationConfig } from "../config/installation-config.js";
import {
  preflightExternal,
  type ExternalCandidate,
} from "../domain/placement/external-preflight.js";
import type { K8sNamespace } from "../domain/index.js";
import {
  createObjectClient,
  loadKubeConfig,
  type ObjectClient,
} from "../drivers/kubernetes/client/index.js";

/** Stands in for a tenant that does not exist yet: any existing tenant marker is foreign. */
const NEW_TENANT = "ns_preflight-candidate";

interface PreflightFlags {
  namespaceId?: string;
  kubeconfig?: string;
  config?: string;
}

async function readCandidate(client: ObjectClient, name: string): Promise<ExternalCandidate> {
  const what = (step: string, err: unknown) =>
    new Error(
      `cannot ${step}: ${(err as Error).message}; run preflight with an identity that may read it`,
    );
  let namespace: K8sNamespace | null;
  try {
    namespace = (await client.find("Namespace", { name })) ?? null;
  } catch (err) {
    throw what(`read namespace ${name}`, err);
  }
  if (namespace === null) return { name, namespace, policies: [] };
  try {
    const policies = await client.list("NetworkPolicy", { namespace: name });
    return { name, namespace, policies };
  } catch (err) {
    throw what(`list the NetworkPolicies in ${name}`, err);
  }
}

export function registerPreflightCommand(namespaces: Command): void {
  namespaces
    .command("preflight <k8s-namespace>")
    .description(
      "check an operator-owned namespace before selecting it as existingNamespace; lists every failing requirement",
    )
    .option("--namespace-id <id>", "the platform Namespace it is (or will be) bound to")
    .option("--kubeconfig <file>", "kubeconfig to read with (default: config, then $KUBECONFIG)")
    .option("--config <file>", "Installation configuration YAML (default: $OCC_CONFIG_PATH)")
    .action(async (name: string, flags: PreflightFlags) => {
      const config = await loadInstallationConfig(flags.config ?? process.env.OCC_CONFIG_PATH);
      const client = createObjectClient(
        loadKubeConfig(flags.kubeconfig ?? config.kubernetes.kubeconfig),
      );
      try {
        const failures = preflightExternal(await readCandidate(client, name), {
          tenantId: flags.namespaceId ?? NEW_TENANT,
          routing: config.compute.gatewayRouting,
          controllerNamespace: config.kubernetes.controllerNamespace,
        });
        if (failures.length === 0) {
          process.stdout.write(`ok: ${name} can be selected as existingNamespace\n`);
          return;
        }
        process.stdout.write(
          `${name}: ${failures.length} requirement(s) not met:\n` +
            failures
              .map((f) => `  ✗ [${f.check}${f.key === null ? "" : ` ${f.key}`}] ${f.message}\n`)
              .join(""),
        );
        process.exitCode = 1;
      } finally {
        client.close();
      }
    });
}
