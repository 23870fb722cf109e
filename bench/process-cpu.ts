import { readFile, readdir } from "node:fs/promises";

/** CPU seconds (user + system, children reaped included) by process group. */
export type CpuByGroup = ReadonlyMap<string, number>;

export interface Proc {
  readonly ppid: number;
  readonly comm: string;
  readonly ticks: number;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Every process of the machine, by PID: parent, command name and CPU ticks so far. */
export async function processes(): Promise<Map<number, Proc>> {
  const out = new Map<number, Proc>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // utime, stime, cutime, cstime (fields 14–17 of proc(5)).
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(f[i] ?? 0), 0);
      out.set(Number(entry), { ppid: Number(f[1]), comm, ticks });
    } catch {
      // The process ended while /proc was read.
    }
  }
  return out;
}

/**
 * The CPU time used so far by this bench process (`bench`: the load generator and the bare
 * client run in it) and by every process it started, grouped: the processes in `named` (and
 * their children) under their name, every other descendant under its command name
 * (kube-apiserver, etcd, postgres and its backends, …). On a 2-core machine P1 is CPU-bound on
 * both sides, so where each window's CPU went says more than its wall time.
 */
export async function cpuByGroup(named: ReadonlyMap<number, string>): Promise<CpuByGroup> {
  const all = await processes();
  const groups = new Map<string, number>();
  for (const [pid, proc] of all) {
    let group: string | null = null;
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = all.get(at)?.ppid) {
      const name = named.get(at);
      if (name !== undefined) {
        group = name;
        break;
      }
      if (at === process.pid) {
        group = pid === process.pid ? "bench" : proc.comm;
        break;
      }
    }
    if (group !== null) groups.set(group, (groups.get(group) ?? 0) + proc.ticks);
  }
  return new Map([...groups].map(([k, ticks]) => [k, ticks / TICKS_PER_SECOND]));
}

/** `name seconds` of what each group used between two readings, largest first, and the sum. */
export function cpuBetween(
  from: CpuByGroup,
  to: CpuByGroup,
): { total: number; text: string; used: CpuByGroup } {
  const used = [...to]
    .map(([k, s]) => [k, s - (from.get(k) ?? 0)] as const)
    .filter(([, s]) => s > 0)
    .sort((a, b) => b[1] - a[1]);
  const total = used.reduce((sum, [, s]) => sum + s, 0);
  return {
    total,
    text: used.map(([k, s]) => `${k} ${s.toFixed(2)}`).join(", "),
    used: new Map(used),
  };
}

/**
 * A window's CPU per CPU second of kube-apiserver, which does the same work in both P1 windows
 * (the same writes, the same watches served): how fast the machine ran cancels out. On this
 * machine the same writes cost kube-apiserver from 5.9 to 9.8 CPU seconds from one window to the
 * next, while this ratio of OCC's window to the bare one stayed within 1.26–1.42 in every run
 * since 2026-12-04 (bench/RESULTS.md).
 */
export function perApiServerSecond(window: { total: number; used: CpuByGroup }): number {
  return window.total / (window.used.get("kube-apiserver") ?? Number.NaN);
}

/** The whole machine's CPU so far (/proc/stat's first line), in seconds. */
export interface MachineCpu {
  /** user, nice, system, irq and softirq of every core. */
  readonly busy: number;
  /** Time the hypervisor ran something else while this machine had work (steal). */
  readonly steal: number;
}

export async function machineCpu(): Promise<MachineCpu> {
  const line = (await readFile("/proc/stat", "utf8")).split("\n", 1)[0] ?? "";
  // cpu user nice system idle iowait irq softirq steal … (proc(5)).
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const at = (i: number) => f[i] ?? 0;
  return {
    busy: (at(0) + at(1) + at(2) + at(5) + at(6)) / TICKS_PER_SECOND,
    steal: at(7) / TICKS_PER_SECOND,
  };
}

/**
 * What the machine did in a window beside the processes the bench counted (`counted`, the
 * total of {@link cpuBetween}): CPU used outside them (other processes, the kernel's own
 * work) and steal. Large values mean the window's ratio says more about the machine than
 * about OCC.
 */
export function machineBetween(from: MachineCpu, to: MachineCpu, counted: number): string {
  const busy = to.busy - from.busy;
  return `machine busy ${busy.toFixed(2)} s, outside the counted processes ${(busy - counted).toFixed(2)} s, steal ${(to.steal - from.steal).toFixed(2)} s`;
}
