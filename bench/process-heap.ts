/**
 * Where a process's resident memory goes, read from its own `/metrics` (prom-client's default
 * Node.js metrics) and its `/proc/<pid>/status`: V8's heap (used and committed, by space), the
 * memory outside the heap V8 knows of (external, array buffers) and the rest of the resident
 * set (code, the allocator's arenas, thread stacks). For P9 (issue 39): the worker's memory at
 * 10,000 tenants, split so that a growth shows where it is.
 */
import { kill } from "node:process";
import { readdir, readFile } from "node:fs/promises";

export interface HeapBreakdown {
  readonly rssMb: number;
  /** The resident set's anonymous part (heaps, allocator arenas) and file-backed part (code). */
  readonly anonMb: number;
  readonly fileMb: number;
  readonly heapUsedMb: number;
  readonly heapTotalMb: number;
  readonly externalMb: number;
  /** Used bytes by V8 space (old_space, new_space, code_space, large_object_space, …), MB. */
  readonly spacesMb: Readonly<Record<string, number>>;
  /** Objects in the worker's watch caches, by kind (`occ_watch_cache_objects`). */
  readonly cached: Readonly<Record<string, number>>;
}

const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;

/** Reads `metricsUrl` once and picks the heap's series out of the text format. */
export async function heapBreakdown(metricsUrl: string, pid: number): Promise<HeapBreakdown> {
  const text = await (await fetch(metricsUrl)).text();
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1]) * 1024;
  const one = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  const labelled = (name: string, label: string) =>
    Object.fromEntries(
      [...text.matchAll(new RegExp(`^${name}\\{${label}="([^"]+)"\\} (\\S+)$`, "gm"))].map((m) => [
        m[1] ?? "",
        Number(m[2]),
      ]),
    );
  const spaces = labelled("nodejs_heap_space_size_used_bytes", "space");
  return {
    rssMb: mb(kb("VmRSS")),
    anonMb: mb(kb("RssAnon")),
    fileMb: mb(kb("RssFile")),
    heapUsedMb: mb(one("nodejs_heap_size_used_bytes")),
    heapTotalMb: mb(one("nodejs_heap_size_total_bytes")),
    externalMb: mb(one("nodejs_external_memory_bytes")),
    spacesMb: Object.fromEntries(Object.entries(spaces).map(([k, v]) => [k, mb(v)])),
    cached: labelled("occ_watch_cache_objects", "kind"),
  };
}

/** One line for the bench's log. */
export function formatBreakdown(b: HeapBreakdown): string {
  const spaces = Object.entries(b.spacesMb)
    .filter(([, v]) => v >= 0.5)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const cached = Object.entries(b.cached)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return (
    `RSS ${b.rssMb} MB (anonymous ${b.anonMb}, file-backed ${b.fileMb}): V8 heap used ${b.heapUsedMb} of ${b.heapTotalMb} MB committed ` +
    `(${spaces}), external ${b.externalMb} MB, outside V8 ${(b.rssMb - b.heapTotalMb).toFixed(1)} MB; ` +
    `cached objects: ${cached}`
  );
}

/** Node.js flags that make SIGUSR2 write a heap snapshot into `dir`. */
export const heapSnapshotFlags = (dir: string): string[] => [
  "--heapsnapshot-signal=SIGUSR2",
  `--diagnostic-dir=${dir}`,
];

/** Asks `pid` (started with {@link heapSnapshotFlags}) for a snapshot; resolves when written. */
export async function takeHeapSnapshot(pid: number, dir: string): Promise<string | null> {
  const before = new Set(await readdir(dir));
  kill(pid, "SIGUSR2");
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 500));
    // The file appears at once and grows while the process is paused writing it: the caller's
    // next request to the process (its /metrics) is answered only once it is complete.
    const added = (await readdir(dir)).filter((f) => !before.has(f) && f.endsWith(".heapsnapshot"));
    if (added.length > 0) return added[0] ?? null;
  }
  return null;
}
