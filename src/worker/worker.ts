import type { Logger } from "pino";
import type { AgentWorkKind } from "../work/agent-work.js";
import type { NamespaceWorkKind } from "../work/namespace-work.js";
import type { ComputeDriver } from "../drivers/compute.js";
import type { WorkloadDriver } from "../drivers/workloads.js";
import { listenForWork, type WorkQueue } from "../queue/index.js";
import type { Db } from "../store/db.js";
import { agentWork } from "./agent-pass.js";
import { namespaceWork, type NamespacePassDeps } from "./namespace-pass.js";
import type { ClaimHow } from "./claim-how.js";
import { startResync, type ResyncOptions } from "./resync.js";
import type { PassSummary } from "./pass-runner.js";
import { workEntry, type ClaimedPass, type WorkEntry } from "./work-entry.js";

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
  /** Called after every Namespace pass (metrics). */
  readonly onPass?: (kind: string, outcome: string, seconds: number) => void;
  /** Told how each claim a slot runs was made (metrics). */
  readonly onClaim?: (how: ClaimHow) => void;
  /** Told the kind of every owned object written back after drift (metrics). */
  readonly onRepaired?: NamespacePassDeps["onRepaired"];
  /**
   * The full resync (lifecycle.md §1): every this many milliseconds (±10 %), a pass for every
   * live Namespace. Absent: no resync (tests that drive the queue themselves).
   */
  readonly resync?: Omit<ResyncOptions, "db" | "queue" | "logger">;
  /**
   * Agent work (revision deploys and teardowns) and the Workload Driver that runs it. Without
   * it the worker claims Namespace work only.
   */
  readonly agents?: {
    readonly queue: WorkQueue<AgentWorkKind>;
    readonly workloads: WorkloadDriver;
  };
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
  const agents = opts.agents;
  const passDeps: NamespacePassDeps = {
    db,
    queue,
    compute: opts.compute,
    ...(opts.events !== undefined ? { events: opts.events } : {}),
    ...(opts.onRepaired !== undefined ? { onRepaired: opts.onRepaired } : {}),
  };
  /**
   * Every kind of work, in claim order: tenants must exist before their Agents. The first
   * chains: a Namespace pass's settle claims the slot's next Namespace work (`work-entry.ts`).
   */
  const entries: readonly WorkEntry[] = [
    workEntry(queue, namespaceWork(passDeps), { chain: true }),
    ...(agents === undefined ? [] : [workEntry(agents.queue, agentWork(agents))]),
  ];
  const signal = await listenForWork(db, {
    kinds: entries.flatMap((entry) => entry.kinds),
    onError: (err) => {
      logger.warn({ err }, "work notification subscription lost; resubscribing");
    },
  });

  const claimAny = async (): Promise<ClaimedPass | null> => {
    for (const entry of entries) {
      const claimed = await entry.claim(db, opts.owner);
      if (claimed !== null) return claimed;
    }
    return null;
  };
  const nextWakeAt = async (): Promise<Date | null> => {
    const times: Date[] = [];
    for (const entry of entries) {
      const at = await entry.nextWakeAt(db);
      if (at !== null) times.push(at);
    }
    return times.length === 0 ? null : new Date(Math.min(...times.map((t) => t.getTime())));
  };

  /** Runs one claimed pass and logs it; resolves with the next claim its settle made, if any. */
  const runOne = async (index: number, claimed: ClaimedPass): Promise<ClaimedPass | null> => {
    // There may be more: one idle slot looks too (one notification woke only this one).
    signal.wakeAnother();
    const { claim } = claimed;
    const started = Date.now();
    const { summary, next } = await claimed.run();
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
        ...logFieldsOf(summary),
      },
      "work pass finished",
    );
    return next ?? null;
  };

  const slot = async (index: number): Promise<void> => {
    /** A claim the previous pass's settle made, to run next. */
    let chained: ClaimedPass | null = null;
    while (!stopping()) {
      try {
        const how: ClaimHow = chained === null ? "claimed" : "chained";
        const claimed = chained ?? (await claimAny());
        chained = null;
        if (claimed !== null) {
          opts.onClaim?.(how);
          chained = await runOne(index, claimed);
          continue;
        }
        const wakeAt = await nextWakeAt();
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
    // Stopping with a chained claim in hand: give it back now rather than let its lease lapse.
    if (chained !== null) {
      await chained.release().catch((err: unknown) => {
        logger.warn(
          { err, slot: index },
          "could not release a claim at shutdown; its lease will expire",
        );
      });
    }
  };

  const slots = Array.from({ length: opts.concurrency }, (_, i) => slot(i));
  const resync =
    opts.resync === undefined ? null : startResync({ db, queue, logger, ...opts.resync });
  logger.info({ concurrency: opts.concurrency, owner: opts.owner }, "worker started");
  return {
    async stop() {
      await resync?.stop();
      abort.abort();
      await Promise.all(slots);
      await signal.close();
      logger.info({ owner: opts.owner }, "worker stopped");
    },
  };
}

/** A pass's summary as log fields: what its record added (e.g. `repaired`) beside the rest. */
function logFieldsOf(summary: PassSummary): Readonly<Record<string, unknown>> {
  if (summary.result !== "applied" || summary.details === undefined) return summary;
  const { details, ...rest } = summary;
  return { ...rest, ...details };
}
