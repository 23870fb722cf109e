import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";

/** A child process whose output goes to `<logDir>/<name>.log`. */
export interface RunningProcess {
  readonly name: string;
  readonly logFile: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<string>;
}

/** Starts `command` with its output captured in a log file; never inherits the parent's stdio. */
export function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  logDir: string,
): RunningProcess {
  const logFile = join(logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: "a" });
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<string>((resolve) => {
    // "close" comes after both output streams ended; the log is flushed before we resolve, so
    // an error message built from the log tail sees the component's last words.
    child.once("close", (code, signal) => {
      log.end(() => {
        resolve(signal ?? String(code));
      });
    });
    child.once("error", (err) => {
      resolve(`spawn error: ${err.message}`);
    });
  });
  return { name, logFile, child, exited };
}

/** Sends SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopProcess(p: RunningProcess, graceMs = 10_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill("SIGTERM");
  const timer = setTimeout(() => p.child.kill("SIGKILL"), graceMs);
  await p.exited;
  clearTimeout(timer);
}

/** The last `lines` lines of a process log, for error messages that say what went wrong. */
export async function logTail(p: RunningProcess, lines = 25): Promise<string> {
  const text = await readFile(p.logFile, "utf8").catch(() => "");
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/** Asks the kernel for a free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => {
        if (addr !== null && typeof addr === "object") resolve(addr.port);
        else reject(new Error("could not determine a free port"));
      });
    });
  });
}

/**
 * Polls `probe` until it returns true, failing with `describe()` once `timeoutMs` passed or
 * `died` settles first (the process exited while we waited).
 */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  opts: { timeoutMs: number; died?: Promise<string>; describe: () => Promise<string> },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let exit: string | undefined;
  void opts.died?.then((code) => (exit = code));
  for (;;) {
    if (exit !== undefined) {
      throw new Error(`${what} exited (${exit}) before it was ready:\n${await opts.describe()}`);
    }
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${what} was not ready within ${opts.timeoutMs} ms:\n${await opts.describe()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
