import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { operatorFolder, type RunOptions } from "../doc-blocks.js";
import type { DeployedEnvironment } from "./environment.js";

/**
 * The operator's shell on the node's cluster, for running the documents' command blocks
 * (test/harness/doc-blocks.ts) as written: `occ` (the repository's CLI) talks to the deployed
 * API at `apiUrl` with the administrator's key, `kubectl` and `helm` act as the cluster
 * administrator. Commands run in a fresh {@link operatorFolder} under the run folder.
 */
export async function operatorShell(
  env: DeployedEnvironment,
  api: { readonly url: string; readonly key: string },
): Promise<RunOptions> {
  const { work, path } = await operatorFolder(await mkdtemp(join(env.runDir, "operator-")));
  return {
    cwd: work,
    timeoutMs: 330_000,
    env: {
      PATH: path,
      KUBECONFIG: env.kubeconfig,
      HELM_NO_PLUGINS: "1",
      OCC_API_URL: api.url,
      OCC_API_KEY: api.key,
      // The CLI reads neither a local configuration nor a database: only the API.
      OCC_CONFIG_PATH: "",
      OCC_DATABASE_URL: "",
    },
  };
}
