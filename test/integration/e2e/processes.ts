import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

const OCC = ["bin/occ.js"];

/** Runs one `occ` command to completion; throws with its output when it fails. */
export function occ(args: readonly string[], env: Record<string, string> = {}): string {
  const res = spawnSync(process.execPath, [...OCC, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  if (res.status !== 0) {
    throw new Error(`occ ${args.join(" ")} exited ${res.status}:\n${res.stdout}\n${res.stderr}`);
  }
  return res.stdout;
}

export interface OccProcess {
  readonly child: ChildProcess;
  readonly output: string[];
  stop(): Promise<void>;
}

/**
 * Starts a long-running `occ` process (api, worker) and resolves once a line of its output
 * matches `ready` (or rejects with its output if it exits first).
 */
export async function startOcc(
  args: readonly string[],
  ready: RegExp,
): Promise<OccProcess & { match: RegExpMatchArray }> {
  const child = spawn(process.execPath, [...OCC, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  };
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        output.push(line);
        const m = ready.exec(line);
        if (m !== null) resolve(m);
      });
    }
    child.once("exit", (code) => {
      reject(new Error(`occ ${args.join(" ")} exited ${code}:\n${output.join("\n")}`));
    });
  });
  return { child, output, stop, match };
}
