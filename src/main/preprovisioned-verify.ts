/**
 * The wiring of `occ preprovisioned verify` (the use case is
 * src/services/preprovisioned/verify.ts): the API's identity, when it has its own kubeconfig,
 * and the database the Agents are read from.
 */
import type { InstallationConfig } from "../config/installation-config.js";
import type { NamespaceId } from "../domain/index.js";
import { createObjectClient, loadKubeConfig } from "../drivers/kubernetes/client/index.js";
import { preprovisionedClusterOf } from "../drivers/preprovisioned-cluster.js";
import type { VerifyOptions } from "../services/preprovisioned/verify.js";
import { agentIdsOf } from "../store/agents.js";
import { openDatabase } from "./database.js";

/**
 * `--database-url ""`: the runbook passes `--database-url "$OCC_DATABASE_URL"`, so an unset
 * variable must not quietly mean "no database" (every Agent's egress policy would then be
 * reported as unverifiable instead of checked).
 */
export const EMPTY_DATABASE_URL =
  "--database-url is empty (is OCC_DATABASE_URL set?): give the PostgreSQL URL the release uses — the one in the Secret named by the chart value database.existingSecret — so verify can read the Agents whose egress policies the namespace holds";

/** The flags of `occ preprovisioned verify` beyond the cluster options. */
export interface VerifyFlags {
  kubeconfig?: string;
  apiKubeconfig?: string;
  databaseUrl?: string;
  pglite?: string;
}

/**
 * What `verify` checks beyond the worker's identity: the API's tenant role (as the API's
 * identity, when it has its own kubeconfig) and the Agents (from the database, when one is
 * given — without it an Agent egress policy is reported as unverifiable).
 */
export async function openVerifyOptions(
  opts: VerifyFlags,
  config: InstallationConfig,
): Promise<{ readonly options: VerifyOptions; readonly close: () => Promise<void> }> {
  const apiKubeconfig =
    opts.apiKubeconfig ??
    (config.kubernetes.apiKubeconfig !== config.kubernetes.kubeconfig
      ? config.kubernetes.apiKubeconfig
      : undefined);
  const api =
    apiKubeconfig === undefined
      ? undefined
      : preprovisionedClusterOf(
          createObjectClient(loadKubeConfig(apiKubeconfig), {
            timeoutMs: config.kubernetes.requestTimeoutMs,
          }),
        );
  if (opts.databaseUrl === "") throw new Error(EMPTY_DATABASE_URL);
  const wantsDb =
    opts.pglite !== undefined || (opts.databaseUrl ?? process.env.OCC_DATABASE_URL ?? "") !== "";
  const db = wantsDb
    ? await openDatabase({ databaseUrl: opts.databaseUrl, pgliteDir: opts.pglite })
    : undefined;
  return {
    options: {
      ...(api !== undefined ? { api } : {}),
      ...(db !== undefined
        ? { agentIds: (tenantId: NamespaceId) => agentIdsOf(db, tenantId) }
        : {}),
    },
    close: async () => {
      api?.close();
      await db?.close();
    },
  };
}
