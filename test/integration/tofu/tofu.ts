/**
 * The real OpenTofu CLI in a working directory of its own, with the OCC provider installed by
 * a `dev_overrides` CLI configuration (no registry, no `tofu init`): both binaries are built by
 * tools/build-tofu.sh into `.tools/bin` (or `$OCC_TOOLS_DIR/bin`).
 */
import { execFile, spawn } from "node:child_process";
import { copyFile, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../../harness/helm.js";

export const TOOLS_BIN = join(process.env.OCC_TOOLS_DIR ?? join(REPO_ROOT, ".tools"), "bin");

/** Builds (or finds up to date) tofu and the provider; returns the script's output. */
export async function buildTofu(): Promise<string> {
  const run = promisify(execFile);
  try {
    const { stdout } = await run("bash", [join(REPO_ROOT, "tools", "build-tofu.sh")], {
      cwd: REPO_ROOT,
      maxBuffer: 1 << 24,
    });
    return stdout;
  } catch (err) {
    const { stdout = "", stderr = "" } = err as { stdout?: string; stderr?: string };
    throw new Error(`tools/build-tofu.sh failed:\n${stdout}\n${stderr}`);
  }
}

export interface TofuResult {
  readonly code: number;
  readonly output: string;
}

export interface Tofu {
  readonly dir: string;
  /** Runs `tofu <args>` to its end; never throws for a non-zero exit code. */
  run(...args: string[]): Promise<TofuResult>;
  /** Runs it and throws with its output unless it exited 0. */
  ok(...args: string[]): Promise<string>;
  /** The state as `tofu show -json` prints it. */
  state(): Promise<TofuState>;
  /** The raw state file (to prove what is not in it). */
  stateFile(): Promise<string>;
}

export interface TofuResource {
  readonly address: string;
  readonly values: Record<string, unknown>;
}
export interface TofuState {
  readonly values?: { readonly root_module?: { readonly resources?: TofuResource[] } };
}

/** A working directory holding `files` (copied) and the provider's endpoint and key. */
export async function tofuIn(files: readonly string[], env: Record<string, string>): Promise<Tofu> {
  const dir = await mkdtemp(join(tmpdir(), "occ-tofu-"));
  for (const f of files) await copyFile(f, join(dir, f.slice(f.lastIndexOf("/") + 1)));
  const cliConfig = join(dir, "cli.tfrc");
  await writeFile(
    cliConfig,
    `provider_installation {\n  dev_overrides {\n    "occ.local/openclaw/occ" = "${TOOLS_BIN}"\n  }\n  direct {}\n}\n`,
  );
  const childEnv = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    TF_CLI_CONFIG_FILE: cliConfig,
    TF_IN_AUTOMATION: "1",
    CHECKPOINT_DISABLE: "1",
    ...env,
  };
  const run = (...args: string[]) =>
    new Promise<TofuResult>((resolve, reject) => {
      const child = spawn(join(TOOLS_BIN, "tofu"), args, { cwd: dir, env: childEnv });
      let output = "";
      child.stdout.on("data", (b: Buffer) => (output += b.toString()));
      child.stderr.on("data", (b: Buffer) => (output += b.toString()));
      child.on("error", reject);
      child.on("close", (code) => {
        resolve({ code: code ?? -1, output });
      });
    });
  const ok = async (...args: string[]) => {
    const r = await run(...args);
    if (r.code !== 0) throw new Error(`tofu ${args.join(" ")} exited ${r.code}:\n${r.output}`);
    return r.output;
  };
  return {
    dir,
    run,
    ok,
    state: async () => JSON.parse(await ok("show", "-json", "-no-color")) as TofuState,
    stateFile: () => readFile(join(dir, "terraform.tfstate"), "utf8"),
  };
}

/** The values of the resource at `address` in `state`; throws when it is not there. */
export function valuesOf(state: TofuState, address: string): Record<string, unknown> {
  const found = state.values?.root_module?.resources?.find((r) => r.address === address);
  if (found === undefined) throw new Error(`${address} is not in the state`);
  return found.values;
}
