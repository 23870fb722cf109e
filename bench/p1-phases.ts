import type { Db } from "../src/store/db.js";
import { cpuBetween, cpuByGroup, type CpuByGroup } from "./process-cpu.js";

/**
 * BENCH_P1_PHASES=1: OCC's P1 window split in its two phases, each with the CPU every process
 * used in it — the create burst (the first `POST /namespaces` until the last one answered: the
 * API, its database and the worker share the 2 cores) and the drain (from then until every
 * Namespace was ready: the worker alone with the cluster) — and the window's timeline: work
 * items queued and finished per 100 ms. The drain's time per Namespace against the bare
 * client's says what the worker adds by itself; the burst says what the creates cost while
 * the worker runs. Off by default: each CPU reading walks /proc inside the window (a few tens
 * of milliseconds of the bench's CPU), and the drain's end is seen by the window's 250 ms poll.
 */
export const PHASES = process.env.BENCH_P1_PHASES === "1";

export interface PhaseClock {
  /** After the last create answered. */
  created(): Promise<void>;
  /**
   * Once every Namespace is ready (`lastMs`: when the last one was, epoch milliseconds): logs
   * both phases and the timeline.
   */
  ready(db: Db, count: number, lastMs: number): Promise<void>;
}

/** Starts the clock at the window's first request (`startWall`, epoch milliseconds). */
export async function startPhases(
  named: ReadonlyMap<number, string>,
  startWall: number,
  log: (line: string) => void,
): Promise<PhaseClock> {
  const start = await cpuByGroup(named);
  let created: { at: number; cpu: CpuByGroup } | null = null;
  const line = (what: string, from: CpuByGroup, to: CpuByGroup, ms: number, n: number): string => {
    const cpu = cpuBetween(from, to);
    return (
      `P1 phases: ${what} ${ms} ms (${(ms / n).toFixed(2)} ms / Namespace); ` +
      `CPU s: ${cpu.text} (total ${cpu.total.toFixed(2)} s)`
    );
  };
  return {
    async created() {
      created = { at: Date.now(), cpu: await cpuByGroup(named) };
    },
    async ready(db, count, lastMs) {
      const end = await cpuByGroup(named);
      if (created !== null) {
        log(
          line(`create burst (${count} POSTs)`, start, created.cpu, created.at - startWall, count),
        );
        log(line("drain (last POST → all ready)", created.cpu, end, lastMs - created.at, count));
      }
      log(`P1 phases: queued/finished per 100 ms: ${await timeline(db, startWall)}`);
    },
  };
}

/** `bucket:queued/finished` for every 100 ms bucket since `sinceMs` that saw either. */
async function timeline(db: Db, sinceMs: number): Promise<string> {
  const res = await db.query<{ b: string; queued: string; finished: string }>(
    `SELECT b, sum(q) AS queued, sum(f) AS finished FROM (
       SELECT floor((extract(epoch FROM created_at) * 1000 - $1::float8) / 100) AS b, 1 AS q, 0 AS f
       FROM work_items WHERE created_at >= to_timestamp($1::float8 / 1000)
       UNION ALL
       SELECT floor((extract(epoch FROM finished_at) * 1000 - $1::float8) / 100), 0, 1
       FROM work_items WHERE finished_at >= to_timestamp($1::float8 / 1000)) AS x
     GROUP BY b ORDER BY b`,
    [sinceMs],
  );
  return res.rows.map((r) => `${r.b}:${r.queued}/${r.finished}`).join(" ");
}
