/**
 * The periodic full resync (lifecycle.md §1): every `everyMs`, jittered by ±10 % so that
 * replicas and restarts spread out, one pass is requested for every live Namespace —
 * provisioning, ready or degraded; never failed, deleting or tombstoned — deduplicated with
 * the work already queued. It is the safety net under the watches: a change missed while the
 * worker or the API server was down is found at the latest one period later.
 */
import type { Logger } from "pino";
import { requestNamespacePasses } from "../work/namespace-pass-batch.js";
import type { NamespaceWorkKind } from "../work/namespace-work.js";
import type { WorkQueue } from "../queue/index.js";
import type { Db } from "../store/db.js";
import { liveNamespaceIds } from "../store/namespace-passes.js";

export interface ResyncOptions {
  readonly db: Db;
  readonly queue: WorkQueue<NamespaceWorkKind>;
  readonly everyMs: number;
  readonly logger: Logger;
  /** A number in [0, 1) for the jitter; default `Math.random`. */
  readonly random?: () => number;
  /** Called after each resync with its duration and how many Namespaces it covered. */
  readonly onResync?: (seconds: number, namespaces: number) => void;
}

const PAGE = 500;

/**
 * One resync: requests a pass for every live Namespace, a page at a time (one batch of
 * requests per page: `namespace-pass-batch.ts`); returns how many it covered.
 */
export async function resyncNamespaces(
  db: Db,
  queue: WorkQueue<NamespaceWorkKind>,
): Promise<number> {
  let after = "";
  let covered = 0;
  for (;;) {
    const ids = await liveNamespaceIds(db, after, PAGE);
    await requestNamespacePasses(db, queue, ids, "resync");
    covered += ids.length;
    const last = ids.at(-1);
    if (last === undefined || ids.length < PAGE) return covered;
    after = last;
  }
}

/** Starts the periodic resync; `stop` waits for a running one to finish. */
export function startResync(opts: ResyncOptions): { stop(): Promise<void> } {
  const random = opts.random ?? Math.random;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        running = run();
      },
      opts.everyMs * (0.9 + 0.2 * random()),
    );
  };
  const run = async (): Promise<void> => {
    const started = Date.now();
    try {
      const covered = await resyncNamespaces(opts.db, opts.queue);
      const seconds = (Date.now() - started) / 1000;
      opts.onResync?.(seconds, covered);
      opts.logger.info({ namespaces: covered, seconds }, "resync queued passes");
    } catch (err) {
      opts.logger.warn({ err }, "resync failed; the next one tries again");
    }
    schedule();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await running;
    },
  };
}
