import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Runs on the host after tools/test-deployed.sh tore the node down: nothing of the run is left.
 * The script's manifest names the run (network namespace, run folder), every process it found
 * (pid and start time), the kernel sysctls as they were before, the fixed folders that did
 * not exist before, and how /run/netns was (folder, mounts).
 */
interface Manifest {
  readonly ns: string;
  readonly run: string;
  readonly processes: readonly { readonly pid: number; readonly start: string }[];
  readonly sysctls: Readonly<Record<string, string>>;
  readonly absentDirs: readonly string[];
  /** How many mounts /run/netns had before the run (`ip netns add` bind-mounts it on itself). */
  readonly netnsMountsBefore: number;
  /** Whether /run/netns existed before the run. */
  readonly netnsDirExisted: boolean;
  /** OCC_KEEP_TEST_DIR was set: the run folder (logs) stays, without any mount. */
  readonly kept: boolean;
}

function manifest(): Manifest {
  const file = process.env.OCC_DEPLOYED_MANIFEST;
  if (file === undefined || !existsSync(file))
    throw new Error("no manifest of a deployed run: run `npm run test:deployed`");
  return JSON.parse(readFileSync(file, "utf8")) as Manifest;
}

const m = manifest();
const NETNS_DIR = "/run/netns";
const bridge = `occbr${m.ns.replace(/^occ-deployed-/, "")}`;
const sh = (cmd: string, args: string[]): string => execFileSync(cmd, args).toString();

function startTime(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[19];
  } catch {
    return undefined;
  }
}

describe("after the deployed run, the machine is as it was", () => {
  it("saw the run's processes, and none of them is alive", () => {
    // The node's components and the pods' processes were found at teardown.
    expect(m.processes.length).toBeGreaterThan(5);
    const alive = m.processes.filter((p) => startTime(p.pid) === p.start);
    expect(alive).toEqual([]);
    const mentioning = readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          return readFileSync(`/proc/${d}/cmdline`, "utf8").includes(m.run);
        } catch {
          return false;
        }
      });
    expect(mentioning).toEqual([]);
  });

  it("left no mount of the run in any process's view, and no run folder unless it was kept", () => {
    const mounts = readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .flatMap((d) => {
        try {
          return readFileSync(`/proc/${d}/mountinfo`, "utf8").split("\n");
        } catch {
          return [];
        }
      })
      .filter((line) => line.includes(m.run) || line.includes(bridge));
    expect(mounts).toEqual([]);
    expect(existsSync(m.run)).toBe(m.kept);
  });

  it("left /run/netns as it found it: the same mounts of it, none of the run's under it", () => {
    // Mount points are field 5 of /proc/self/mountinfo (this process is in the host's mount
    // namespace, where the script ran `ip netns add`).
    const mountPoints = readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .map((line) => line.split(" ")[4] ?? "");
    expect(Number.isInteger(m.netnsMountsBefore)).toBe(true);
    expect(mountPoints.filter((p) => p === NETNS_DIR).length).toBe(m.netnsMountsBefore);
    const under = mountPoints
      .filter((p) => p.startsWith(`${NETNS_DIR}/`))
      .map((p) => p.slice(NETNS_DIR.length + 1))
      .filter((n) => n === m.ns || n.startsWith("cni-"));
    expect(under).toEqual([]);
    expect(existsSync(NETNS_DIR)).toBe(m.netnsDirExisted);
  });

  it("left no network namespace, bridge or iptables chain of the run", () => {
    const namespaces = sh("ip", ["netns", "list"]);
    expect(namespaces).not.toContain(m.ns);
    expect(namespaces).not.toMatch(/^cni-/m);
    expect(sh("ip", ["-o", "link", "show"])).not.toContain(bridge);
    for (const save of ["iptables-save", "iptables-legacy-save"]) {
      const rules = sh(save, []);
      expect(rules).not.toMatch(/KUBE-|CNI-/);
    }
  });

  it("left no cgroup of the pods, and restored the kernel sysctls the kubelet set", () => {
    const kubepods = readdirSync("/sys/fs/cgroup").filter((c) =>
      existsSync(join("/sys/fs/cgroup", c, "kubepods")),
    );
    expect(kubepods).toEqual([]);
    expect(Object.keys(m.sysctls).length).toBeGreaterThan(0);
    for (const [key, before] of Object.entries(m.sysctls)) {
      expect({ key, now: sh("sysctl", ["-n", key]).trim() }).toEqual({ key, now: before });
    }
  });

  it("left no CNI state, log link or runtime folder of the run on the host", () => {
    for (const dir of m.absentDirs)
      expect({ dir, exists: existsSync(dir) }).toEqual({ dir, exists: false });
    const links = existsSync("/var/log/containers")
      ? readdirSync("/var/log/containers").filter((l) =>
          readlinkSync(join("/var/log/containers", l)).startsWith(m.run),
        )
      : [];
    expect(links).toEqual([]);
    for (const dir of ["/var/lib/cni/results", "/var/lib/cni/networks"]) {
      const entries = existsSync(dir) ? readdirSync(dir).filter((e) => e.startsWith(m.ns)) : [];
      expect(entries).toEqual([]);
    }
  });
});
