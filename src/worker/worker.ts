import type { Logger } from "pino";
import type { NamespaceWorkKind } from "../occ/namespace-work.js";
import type { ComputeDriver } from "../drivers/compute.js";
import { listenForWork, type WorkQueue } from "../queue/index.js";
import type { Db } from "../store/db.js";
import { runNamespacePass, type NamespacePassDeps } from "./namespace-pass.js";

export interface WorkerOptions {
  readonly db: Db;
  readonly queue: WorkQueue<NamespaceWorkKind>;
  readonly compute: ComputeDriver;
  /** Claims processed at once (one per lane). */
  readonly concurrency: number;
  /** Recorded as the claimant of each work item. */
  readonly owner: string;
  readonly logger: Logger;
  /** Longest sleep without a notification; NOTIFY normally wakes the worker at once. */
  readonly pollFallbackMs?: number;
  /** Best-effort Kubernetes Events on tenant namespaces (see `NamespacePassDeps.events`). */
  readonly events?: NamespacePassDeps["events"];
  /** Called after every pass (metrics). */
  readonly onPass?: (kind: NamespaceWorkKind, outcome: string, seconds: number) => void;
}

export interface RunningWorker {
  /** Stops claiming, lets in-flight passes finish, and stops listening. */
  stop(): Promise<void>;
}

/**
 * The worker process's loop: `concurrency` slots, each claiming the oldest eligible work on a
 * free lane and running one pass; an idle slot sleeps until NOTIFY announces work, until the
 * next backoff expires, or at most `pollFallbackMs`. A pass that throws (e.g. the database is
 * unreachable) is logged once and its lease simply expires, returning the work to the queue.
 */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const { db, queue, logger } = opts;
  const poll = opts.pollFallbackMs ?? 5_000;
  const abort = new AbortController();
  const stopping = (): boolean => abort.signal.aborted;
  const signal = await listenForWork(db, {
    kinds: queue.kinds,
    onError: (err) => {
      logger.warn({ err }, "work notification subscription lost; resubscribing");
    },
  });

  const slot = async (index: number): Promise<void> => {
    while (!stopping()) {
      try {
        const claim = await queue.claim(db, { owner: opts.owner });
        if (claim !== null) {
          const started = Date.now();
          const summary = await runNamespacePass({ db, queue, compute: opts.compute }, claim);
          const outcome = summary.result === "applied" ? summary.move : summary.result;
          opts.onPass?.(claim.item.kind, outcome, (Date.now() - started) / 1000);
          logger.info(
            {
              slot: index,
              workItem: claim.item.id,
              kind: claim.item.kind,
              subject: claim.item.subject,
              attempt: claim.lease.attempt,
              durationMs: Date.now() - started,
              ...summary,
            },
            "work pass finished",
          );
          continue;
        }
        const wakeAt = await queue.nextWakeAt(db);
        const untilDue = wakeAt === null ? poll : wakeAt.getTime() - Date.now();
        await signal.wait(Math.max(10, Math.min(poll, untilDue)), abort.signal);
      } catch (err) {
        if (stopping()) return;
        logger.error(
          { err, slot: index },
          "work pass failed; its lease will expire and the work return to the queue",
        );
        await signal.wait(Math.min(poll, 1_000), abort.signal);
      }
    }
  };

  const slots = Array.from({ length: opts.concurrency }, (_, i) => slot(i));
  logger.info({ concurrency: opts.concurrency, owner: opts.owner }, "worker started");
  return {
    async stop() {
      abort.abort();
      await Promise.all(slots);
      await signal.close();
      logger.info({ owner: opts.owner }, "worker stopped");
    },
  };
}
