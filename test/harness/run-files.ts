import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { inject } from "vitest";
import { uniqueName } from "./kube.js";

/**
 * Writes `doc` as a configuration file (JSON, which YAML reads) under a unique name in the run's
 * directory; its path.
 */
export async function writeRunConfig(prefix: string, doc: unknown): Promise<string> {
  const file = join(inject("env").runDir, `${uniqueName(prefix)}.yaml`);
  await writeFile(file, JSON.stringify(doc));
  return file;
}
