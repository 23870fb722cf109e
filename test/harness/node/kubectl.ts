import { execFile } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../helm.js";

export const KUBECTL = join(REPO_ROOT, ".tools", "bin", "kubectl");

export interface CommandRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` with `args`; never throws for a non-zero exit (the caller asserts on it). */
export function runCommand(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  input?: string,
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      [...args],
      { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } },
      (err, stdout, stderr) => {
        if (err !== null && typeof err.code !== "number") {
          reject(new Error(`cannot run ${command}: ${err.message}`));
          return;
        }
        resolve({ code: err === null ? 0 : Number(err.code), stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** kubectl as the given kubeconfig's identity. */
export function kubectl(kubeconfig: string, args: readonly string[], input?: string) {
  return runCommand(KUBECTL, ["--kubeconfig", kubeconfig, ...args], {}, input);
}

/** kubectl that must succeed: its stdout, or an error with its stderr. */
export async function kubectlOk(kubeconfig: string, args: readonly string[], input?: string) {
  const r = await kubectl(kubeconfig, args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** `kubectl apply -f -` of one object (or a List), as JSON; fails on a non-zero exit. */
export function kubectlApply(kubeconfig: string, object: object): Promise<string> {
  return kubectlOk(kubeconfig, ["apply", "-f", "-"], JSON.stringify(object));
}

/** Polls `probe` every second until it returns a value other than undefined. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  describe: () => Promise<string> = () => Promise.resolve(""),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${timeoutMs} ms ${last}\n${await describe()}`);
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

export async function waitForNodeReady(kubeconfig: string, node: string, timeoutMs: number) {
  await eventually(
    `node ${node} Ready`,
    async () => {
      const out = await kubectlOk(kubeconfig, [
        "get",
        "node",
        node,
        "-o",
        'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
      ]);
      return out === "True" ? true : undefined;
    },
    timeoutMs,
    async () => (await kubectl(kubeconfig, ["describe", "node", node])).stdout,
  );
}
