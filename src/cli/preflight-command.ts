/**
 * `occ namespaces preflight <k8s-namespace>`: runs the worker's adoption checks read-only
 * against a candidate namespace and prints every failing requirement with its fix. Exit code
 * 0 only when adoption would pass — usable as a gate in an operator's pipeline.
 *
 * Beyond the namespace's own metadata and NetworkPolicies it reads the RoleBindings in it and
 * the ClusterRoleBindings (the worker's and the API's tenant roles, and the worker's OpenShell
 * role when OpenShell is configured), and, for a given `--namespace-id`, the namespaces that
 * already claim that tenant.
 */
import type { Command } from "commander";
import { loadInstallationConfig, type InstallationConfig } from "../config/installation-config.js";
import { preflightExternal } from "../domain/placement/external-preflight.js";
import type { Violation } from "../domain/placement/violations.js";
import type { RequiredGrant } from "../domain/index.js";
import { createObjectClient, loadKubeConfig } from "../drivers/kubernetes/client/index.js";
import {
  NEW_TENANT,
  preflightContext,
  readCandidate,
  requiredGrantsFor,
} from "../drivers/kubernetes/preflight-reads.js";
import { parseSubject } from "./subjects.js";

export { preflightContext, readCandidate };

export interface PreflightFlags {
  namespaceId?: string;
  kubeconfig?: string;
  config?: string;
  worker?: string;
  api?: string;
}

/** Every failing requirement of `name`, one line each with its check, key and fix. */
export function failureReport(name: string, failures: readonly Violation[]): string {
  return (
    `${name}: ${failures.length} requirement(s) not met:\n` +
    failures
      .map((f) => `  ✗ [${f.check}${f.key === null ? "" : ` ${f.key}`}] ${f.message}\n`)
      .join("")
  );
}

/** The tenant RoleBindings adoption needs, for the given (or configured) identities. */
export function requiredGrants(
  name: string,
  config: InstallationConfig,
  flags: PreflightFlags,
): RequiredGrant[] {
  return requiredGrantsFor(name, config, {
    worker: flags.worker === undefined ? undefined : parseSubject("--worker", flags.worker),
    api: flags.api === undefined ? undefined : parseSubject("--api", flags.api),
  });
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
    .option(
      "--worker <subject>",
      "the worker's identity: <namespace>:<serviceaccount> or user:<name> (default: kubernetes.tenantRoleBindings, else openclaw-system:occ-worker)",
    )
    .option(
      "--api <subject>",
      "the API's identity: <namespace>:<serviceaccount> or user:<name> (default: kubernetes.tenantRoleBindings, else openclaw-system:occ-api)",
    )
    .action(async (name: string, flags: PreflightFlags) => {
      const config = await loadInstallationConfig(flags.config ?? process.env.OCC_CONFIG_PATH);
      const grants = requiredGrants(name, config, flags);
      const client = createObjectClient(
        loadKubeConfig(flags.kubeconfig ?? config.kubernetes.kubeconfig),
      );
      try {
        const candidate = await readCandidate(client, name, flags.namespaceId);
        const failures = preflightExternal(
          candidate,
          preflightContext(config, grants, flags.namespaceId ?? NEW_TENANT),
        );
        if (failures.length === 0) {
          process.stdout.write(`ok: ${name} can be selected as existingNamespace\n`);
          return;
        }
        process.stdout.write(failureReport(name, failures));
        process.exitCode = 1;
      } finally {
        client.close();
      }
    });
}
