import { execFile } from "node:child_process";
import { readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { OCC_ENTRY, startOcc as startOccProcess } from "../test/harness/occ.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** `bin/occ.js` of this checkout: without a dist/ tree it runs the sources through tsx. */
export const OCC_SOURCE = OCC_ENTRY;

/**
 * Compiles the sources as the container image does (`tsc -p tsconfig.build.json`), into
 * `dir/dist` rather than the checkout's dist/ (which bin/occ.js would then prefer for every
 * later test), and returns the entry point bin/occ.js imports from a built tree.
 */
export async function buildOcc(dir: string): Promise<string> {
  const out = join(dir, "dist");
  await promisify(execFile)(
    process.execPath,
    [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"].concat([
      "--outDir",
      out,
    ]),
    { cwd: ROOT },
  );
  await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"));
  // The compiled processes read the release's migrations beside dist/ (the schema check).
  await symlink(join(ROOT, "migrations"), join(dir, "migrations"));
  return join(out, "cli", "main.js");
}

/** A long-running `occ api` or `occ worker` child process, started as an operator would. */
export interface OccChild {
  readonly pid: number;
  /** The first capture group of the line that announced readiness (e.g. the API URL). */
  readonly announced: string;
  /** Resident memory now and at its peak (VmRSS, VmHWM of /proc/<pid>/status), in bytes. */
  memory(): Promise<{ rss: number; peak: number }>;
  /** CPU time used so far (user + system, /proc/<pid>/stat), in seconds. */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Runs `node <entry> <args>` (entry: {@link OCC_SOURCE} or {@link buildOcc}'s) through the
 * tests' one spawner (test/harness/occ.ts) and resolves once a line of its output matches
 * `ready` (rejecting with its output if it exits first). Its output goes straight into
 * `logFile`, never through the benchmark's own process, whose CPU shares the 2 cores with
 * what it measures.
 */
export async function startOcc(
  entry: string,
  args: readonly string[],
  ready: RegExp,
  opts: { readonly logFile: string; readonly nodeArgs?: readonly string[] },
): Promise<OccChild> {
  const proc = await startOccProcess(args, ready, {
    entry,
    nodeArgs: opts.nodeArgs ?? [],
    logFile: opts.logFile,
  });
  const announced = proc.match[1] ?? "";
  const pid = proc.pid;
  return {
    pid,
    announced,
    async memory() {
      const status = await readFile(`/proc/${pid}/status`, "utf8");
      const kb = (key: string) =>
        Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
      return { rss: kb("VmRSS") * 1024, peak: kb("VmHWM") * 1024 };
    },
    async cpuSeconds() {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks
    },
    stop: () => proc.stop(),
  };
}

/** The API key header and JSON body of a request to the OCC API. */
export function apiRequest(key: string, method: string, body?: unknown): RequestInit {
  return {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
}

/** `POST /namespaces`; returns the new Namespace's ID, throws on any other status than 201. */
export async function postNamespace(url: string, key: string, name: string): Promise<string> {
  const res = await fetch(`${url}/namespaces`, apiRequest(key, "POST", { name }));
  if (res.status !== 201) throw new Error(`POST /namespaces: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { id: string } }).data.id;
}
