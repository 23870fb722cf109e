import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { promisify } from "node:util";
import { CLUSTER, clusterSeconds, untilClusterQuiet } from "./cluster-quiet.js";
import { cpuBetween, cpuByGroup, processes, type Proc } from "./process-cpu.js";

const exec = promisify(execFile);

/**
 * P1's side-by-side pair again with the cluster kept off the client's core: kube-apiserver,
 * etcd and the controller manager on core 0; on core 1 everything that talks to the cluster —
 * the bench itself (the load generator, or the bare client), and on OCC's side `occ api`,
 * `occ worker` and PostgreSQL. As in a deployment, where the control plane's pods do not run on
 * the API server's CPUs. Context for the bar, not the bar: P1 itself shares both cores.
 *
 * Pins every thread (`taskset -a`) of the processes running now; PostgreSQL backends forked
 * later inherit their postmaster's core. Returns the undo, which gives every process of the
 * bench both cores again.
 */
export async function splitCores(clients: readonly number[]): Promise<() => Promise<void>> {
  const table = await processes();
  const mine = descendants(table, process.pid);
  const clientSide = new Set([process.pid, ...clients.flatMap((pid) => descendants(table, pid))]);
  const cluster: number[] = [];
  for (const pid of mine) {
    const comm = table.get(pid)?.comm ?? "";
    if (CLUSTER.has(comm)) cluster.push(pid);
    else if (comm === "postgres") clientSide.add(pid);
  }
  if (cluster.length < 3)
    throw new Error(`split cores: found only ${cluster.join(", ")} of the cluster`);
  await pin(cluster, "0");
  await pin([...clientSide], "1");
  if (clients.length > 0) await reniceOcc(clients, mine, table);
  return async () => pin(descendants(await processes(), process.pid), "0-1");
}

/**
 * BENCH_P1_NICE="worker=-10,api=5,postgres=5" (a diagnostic, off unless set): each named side
 * of OCC's window at that nice value, every thread of it (`renice` is per thread on Linux),
 * PostgreSQL through its postmaster too, so that backends forked later inherit it. It tells
 * how much of the cluster's idle time in OCC's create burst comes from the worker waiting for
 * core 1 behind the API and PostgreSQL. OCC's processes and PostgreSQL are fresh for every
 * pair, so nothing of it outlives the pair.
 */
async function reniceOcc(
  clients: readonly number[],
  mine: readonly number[],
  table: ReadonlyMap<number, Proc>,
): Promise<void> {
  const spec = process.env.BENCH_P1_NICE;
  if (spec === undefined || spec === "") return;
  const [api, worker] = clients;
  for (const part of spec.split(",")) {
    const [who, value] = part.split("=");
    const pids =
      who === "worker"
        ? [worker]
        : who === "api"
          ? [api]
          : who === "postgres"
            ? mine.filter((pid) => table.get(pid)?.comm === "postgres")
            : null;
    if (pids === null || value === undefined || !/^-?\d+$/.test(value)) {
      throw new Error(`BENCH_P1_NICE: "${part}" is not worker=<n>, api=<n> or postgres=<n>`);
    }
    for (const pid of pids) {
      if (pid === undefined) continue;
      for (const tid of readdirSync(`/proc/${String(pid)}/task`)) {
        // A thread may end between the listing and here.
        await exec("renice", ["-n", value, "-p", tid]).catch((err: unknown) => {
          if (running(Number(tid))) throw err;
        });
      }
    }
  }
}

/** `root` and every process below it. */
function descendants(table: ReadonlyMap<number, Proc>, root: number): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i += 1) {
    for (const [pid, p] of table) if (p.ppid === out[i]) out.push(pid);
  }
  return out.filter((pid) => table.has(pid));
}

async function pin(pids: readonly number[], cores: string): Promise<void> {
  for (const pid of pids) {
    // A process may end between the listing and here (a PostgreSQL backend, a short child);
    // any other failure (no taskset, not allowed) would leave the rows measuring shared cores.
    await exec("taskset", ["-a", "-p", "-c", cores, String(pid)]).catch((err: unknown) => {
      if (running(pid)) throw err;
    });
  }
}

/** Still there and not a zombie (`/proc/<pid>/stat`'s state after the command name). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Each side of the pair on separate cores: its window, and the cluster's CPU meanwhile. */
export interface SplitCores {
  readonly occMs: number;
  readonly bareMs: number;
  /**
   * CPU seconds kube-apiserver, etcd and the controller manager used from just before each
   * window (the pinning's few milliseconds, on a quiet cluster) until its function returned:
   * for OCC's, its last poll, up to a quarter of a second after the last Namespace was ready,
   * so the controller manager's trailing work for the last namespaces counts on OCC's side and
   * not on the bare one's (a few tenths of a per cent of the window at 1,000).
   * The pair's ratio is their ratio (the cluster's extra work in OCC's window: watches, and how
   * fast the machine ran) times the ratio of how busy each window kept the cluster's core
   * ({@link splitParts}).
   */
  readonly occClusterS: number;
  readonly bareClusterS: number;
}

/**
 * A pair's ratio in two factors that multiply to it: the cluster's CPU in OCC's window over
 * the bare one's, and how busy the bare window kept the cluster's core over how busy OCC's did
 * (busy = the cluster's CPU seconds per second of the window). The CPU is read in 10 ms ticks
 * per process over a span a little longer than the window (the pinning), so on a window of
 * a second or less busy can read above 100 %; the product stays the pair's ratio exactly.
 */
export function splitParts(pair: SplitCores): {
  readonly cpu: number;
  readonly occBusy: number;
  readonly bareBusy: number;
} {
  return {
    cpu: pair.occClusterS / pair.bareClusterS,
    occBusy: pair.occClusterS / (pair.occMs / 1000),
    bareBusy: pair.bareClusterS / (pair.bareMs / 1000),
  };
}

/** `1.17 (busy 88 % / 99 %, cluster CPU ×1.05)`: one pair's ratio and its two factors. */
export function splitText(pair: SplitCores): string {
  const { cpu, occBusy, bareBusy } = splitParts(pair);
  const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
  return `${(pair.occMs / pair.bareMs).toFixed(2)} (busy ${pct(occBusy)} / ${pct(bareBusy)}, cluster CPU ×${cpu.toFixed(2)})`;
}

/**
 * OCC's window (fresh `occ` processes, warmed up on both cores first) and then the bare
 * client's, each with the cluster on core 0 and the rest on core 1. OCC's processes are stopped
 * (`stopOcc`) before the bare window: the bare client runs alone, as in the bar's pair — a
 * running worker would watch its writes (their namespaces carry tenant markers) and look their
 * tenants up in PostgreSQL, on either core (until 2026-12-06 it did, which slowed the bare side).
 */
export async function splitCoresPair(opts: {
  /** `occ api` and `occ worker`. */
  clients: readonly number[];
  warmUp: () => Promise<number>;
  occ: () => Promise<number>;
  stopOcc: () => Promise<void>;
  bare: () => Promise<number>;
  /**
   * BENCH_P1_SPLIT_WATCHED=1: after the bare window, the bare client's same writes again with
   * the worker's watches open in its process (`synced` is called once they are), on the same
   * split cores: what the watches cost the cluster's core, with nothing else of OCC's;
   * `=first`: before the bare window.
   */
  watched?: (synced: () => Promise<void>) => Promise<number>;
  log: (line: string) => void;
}): Promise<SplitCores> {
  let occMs: number;
  let occClusterS: number;
  try {
    await opts.warmUp();
    opts.log(`before OCC's window: ${await untilClusterQuiet()}`);
    const from = await cpuByGroup(new Map());
    occMs = await onSplitCores(opts.clients, opts.occ);
    occClusterS = clusterSeconds(from, await cpuByGroup(new Map()));
  } finally {
    await opts.stopOcc();
  }
  // BENCH_P1_SPLIT_WATCHED=first: the watched window before the bare one (each runs on a
  // cluster larger by the other's writes when it comes second: run both orders to tell).
  const watchedWhen = process.env.BENCH_P1_SPLIT_WATCHED;
  if (watchedWhen === "first") await watchedWindow(opts);
  // BENCH_P1_PHASES=1: the bare window's CPU by process too, beside OCC's phases.
  opts.log(`before the bare window: ${await untilClusterQuiet()}`);
  const before = await cpuByGroup(new Map());
  const bareMs = await onSplitCores([], opts.bare);
  const after = await cpuByGroup(new Map());
  if (process.env.BENCH_P1_PHASES === "1") {
    const cpu = cpuBetween(before, after);
    opts.log(`bare (split): CPU s: ${cpu.text} (total ${cpu.total.toFixed(2)} s)`);
  }
  const pair = { occMs, bareMs, occClusterS, bareClusterS: clusterSeconds(before, after) };
  opts.log(
    `cluster on core 0, the rest on core 1: OCC ${(occMs / 1000).toFixed(2)} s, bare ${(bareMs / 1000).toFixed(2)} s = ${splitText(pair)}`,
  );
  if (watchedWhen === "1") await watchedWindow(opts);
  return pair;
}

/** The bare client's writes with the worker's watches open (`opts.watched`), on split cores. */
async function watchedWindow(opts: {
  watched?: (synced: () => Promise<void>) => Promise<number>;
  log: (line: string) => void;
}): Promise<void> {
  const watched = opts.watched;
  if (watched === undefined) return;
  opts.log(`before the watched window: ${await untilClusterQuiet()}`);
  let from = await cpuByGroup(new Map());
  const ms = await onSplitCores([], () =>
    watched(async () => {
      from = await cpuByGroup(new Map());
    }),
  );
  const cpu = cpuBetween(from, await cpuByGroup(new Map()));
  opts.log(
    `bare with the worker's watches (split): ${(ms / 1000).toFixed(2)} s; CPU s: ${cpu.text} (total ${cpu.total.toFixed(2)} s)`,
  );
}

async function onSplitCores<T>(clients: readonly number[], work: () => Promise<T>): Promise<T> {
  const undo = await splitCores(clients);
  try {
    return await work();
  } finally {
    await undo();
  }
}
