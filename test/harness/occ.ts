/**
 * The one way tests (and bench/) start the real `occ` as a child process: `bin/occ.js` of this
 * checkout (without a dist/ tree it runs the sources through tsx), run to completion
 * ({@link runOcc}, {@link occ}, {@link runOccAsync}) or left running ({@link spawnOcc},
 * {@link startOcc}, which waits for the line announcing readiness).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./helm.js";

export const OCC_ENTRY = join(REPO_ROOT, "bin", "occ.js");

export interface OccOptions {
  /** Added to the environment (a value `undefined` removes that variable). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Start from an environment holding only PATH (as in a pod) instead of the test's. */
  readonly isolatedEnv?: boolean;
  readonly cwd?: string;
  /** Another entry point (e.g. a compiled tree's `cli/main.js`); default {@link OCC_ENTRY}. */
  readonly entry?: string;
  /** Arguments for node itself, before the entry point. */
  readonly nodeArgs?: readonly string[];
  /** {@link runOcc} only: kill the command after this long (default 60 s). */
  readonly timeoutMs?: number;
  /**
   * {@link spawnOcc} and {@link startOcc}: both streams go straight into this file (appended)
   * instead of through this process, which then spends nothing on the child's log lines (the
   * benchmarks: every CPU second here is taken from what they measure). `output` stays empty
   * and `exited` has empty streams; {@link startOcc} reads the file for its ready line.
   */
  readonly logFile?: string;
}

/** How a command that ran to completion ended. */
export interface OccResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function environment(opts: OccOptions): NodeJS.ProcessEnv {
  const base = opts.isolatedEnv === true ? { PATH: process.env.PATH ?? "" } : process.env;
  const merged = { ...base, ...opts.env };
  return Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined));
}

function argv(args: readonly string[], opts: OccOptions): string[] {
  return [...(opts.nodeArgs ?? []), opts.entry ?? OCC_ENTRY, ...args];
}

/** Runs one `occ` command to completion (blocking); never throws on its exit code. */
export function runOcc(args: readonly string[], opts: OccOptions = {}): OccResult {
  const res = spawnSync(process.execPath, argv(args, opts), {
    encoding: "utf8",
    env: environment(opts),
    timeout: opts.timeoutMs ?? 60_000,
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** Runs one `occ` command and returns its stdout; throws with both streams unless it exits 0. */
export function occ(args: readonly string[], opts: OccOptions = {}): string {
  const res = runOcc(args, opts);
  if (res.status !== 0) {
    throw new Error(`occ ${args.join(" ")} exited ${res.status}:\n${res.stdout}\n${res.stderr}`);
  }
  return res.stdout;
}

/** A running `occ` child process. */
export interface OccProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every line it wrote to stdout and stderr so far, in order of arrival. */
  readonly output: string[];
  /** Resolves once it exited and its streams are closed. */
  readonly exited: Promise<OccResult>;
  /**
   * SIGTERM, then waits for the exit (at once when it already exited); a process still running
   * a minute later is killed and the call rejects with its last output.
   */
  stop(): Promise<void>;
  /** SIGKILL (no cleanup), then waits for the exit. */
  kill(): Promise<void>;
  /** Whether it has neither exited nor been ended by a signal. */
  running(): boolean;
}

/** How long `stop()` waits after SIGTERM before it kills the process and reports it. */
const STOP_GRACE_MS = 60_000;

/** Starts `occ` without waiting for anything. */
export function spawnOcc(args: readonly string[], opts: OccOptions = {}): OccProcess {
  return launch(args, opts, () => undefined);
}

function launch(
  args: readonly string[],
  opts: OccOptions,
  onLine: (line: string) => void,
): OccProcess {
  const fd = opts.logFile === undefined ? null : openSync(opts.logFile, "a");
  const child = spawn(process.execPath, argv(args, opts), {
    stdio: fd === null ? ["ignore", "pipe", "pipe"] : ["ignore", fd, fd],
    env: environment(opts),
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
  });
  if (fd !== null) closeSync(fd); // the child holds its own copy
  const output: string[] = [];
  const text = { stdout: "", stderr: "" };
  for (const name of ["stdout", "stderr"] as const) {
    const stream = child[name];
    if (stream === null) continue;
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      text[name] += chunk;
    });
    createInterface({ input: stream }).on("line", (line) => {
      output.push(line);
      onLine(line);
    });
  }
  const exited = new Promise<OccResult>((resolve) => {
    child.once("close", (status) => {
      resolve({ status, ...text });
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const signal = async (sig: NodeJS.Signals) => {
    if (!running()) return;
    const exit = new Promise((r) => child.once("exit", r));
    child.kill(sig);
    await exit;
  };
  /** SIGTERM; a process still running after the grace period is killed and reported. */
  const stop = async () => {
    if (!running()) return;
    const exit = new Promise((r) => child.once("exit", r));
    child.kill("SIGCONT"); // a frozen process handles SIGTERM only once resumed
    child.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      exit.then(() => false),
      new Promise<boolean>((r) => {
        timer = setTimeout(() => {
          r(true);
        }, STOP_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!late) return;
    await signal("SIGKILL");
    throw new Error(
      `occ ${args.join(" ")} (pid ${child.pid}) did not exit within ${STOP_GRACE_MS} ms of ` +
        `SIGTERM and was killed; its last output:\n${opts.logFile !== undefined ? `(in ${opts.logFile})` : output.slice(-20).join("\n")}`,
    );
  };
  return {
    child,
    pid: child.pid ?? 0,
    output,
    exited,
    stop,
    kill: () => signal("SIGKILL"),
    running,
  };
}

/** Runs one `occ` command to completion without blocking the test (it may wait on the test). */
export function runOccAsync(args: readonly string[], opts: OccOptions = {}): Promise<OccResult> {
  return spawnOcc(args, opts).exited;
}

/**
 * Starts a long-running `occ` (api, worker, dev up) and resolves once a line of its output
 * matches `ready`, with that match (e.g. the URL it announced); rejects with its output if it
 * exits first.
 */
export async function startOcc(
  args: readonly string[],
  ready: RegExp,
  opts: OccOptions = {},
): Promise<OccProcess & { readonly match: RegExpMatchArray }> {
  let announced: (m: RegExpMatchArray) => void = () => undefined;
  const proc = launch(args, opts, (line) => {
    const m = ready.exec(line);
    if (m !== null) announced(m);
  });
  const logFile = opts.logFile;
  const written = async () =>
    logFile === undefined ? proc.output.join("\n") : readFile(logFile, "utf8");
  let exited = false;
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    announced = resolve;
    proc.child.once("exit", (status) => {
      exited = true;
      void written().then((text) => {
        reject(new Error(`occ ${args.join(" ")} exited ${status}:\n${text}`));
      }, reject);
    });
    if (logFile !== undefined) void pollForReady(logFile, ready, () => exited, resolve);
  });
  return { ...proc, match };
}

/** Reads `file` every 50 ms until a line matches `ready` (then `found`) or `stopped()`. */
async function pollForReady(
  file: string,
  ready: RegExp,
  stopped: () => boolean,
  found: (m: RegExpMatchArray) => void,
): Promise<void> {
  while (!stopped()) {
    const text = await readFile(file, "utf8").catch(() => "");
    for (const line of text.split("\n")) {
      const m = ready.exec(line);
      if (m !== null) {
        found(m);
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
