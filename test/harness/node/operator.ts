import { chmod, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunOptions } from "../doc-blocks.js";
import { REPO_ROOT } from "../helm.js";
import type { DeployedEnvironment } from "./environment.js";

/**
 * The operator's shell on the node's cluster, for running the documents' command blocks
 * (test/harness/doc-blocks.ts) as written: `occ` (the repository's CLI) talks to the deployed
 * API at `apiUrl` with the administrator's key, `kubectl` and `helm` act as the cluster
 * administrator. Commands run in a fresh folder under the run folder.
 */
export async function operatorShell(
  env: DeployedEnvironment,
  api: { readonly url: string; readonly key: string },
): Promise<RunOptions> {
  const dir = await mkdtemp(join(env.runDir, "operator-"));
  const bin = join(dir, "bin");
  const work = join(dir, "work");
  await mkdir(bin);
  await mkdir(work);
  const tool = async (name: string, target: string) => {
    await writeFile(join(bin, name), `#!/bin/sh\nexec ${target} "$@"\n`);
    await chmod(join(bin, name), 0o755);
  };
  await tool("occ", `${process.execPath} ${join(REPO_ROOT, "bin", "occ.js")}`);
  await tool("kubectl", join(REPO_ROOT, ".tools", "bin", "kubectl"));
  await tool("helm", join(REPO_ROOT, ".tools", "bin", "helm"));
  return {
    cwd: work,
    timeoutMs: 330_000,
    env: {
      PATH: `${bin}:${process.env.PATH ?? ""}`,
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
