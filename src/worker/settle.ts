/**
 * The end of a pass: the fenced queue move of its outcome and the kind's declared record,
 * settled the way {@link settleWay} chooses — composed into the completion's one statement, or
 * in a transaction — then, after commit, the record's announcement.
 */
import type { Claim, ClaimOptions } from "../queue/index.js";
import { QUEUE_MOVES, type PassOutcome } from "./outcome-table.js";
import type { PassRunnerDeps, PassSummary, Stopped, Verdict, WorkHandler } from "./pass-runner.js";
import { composedParts, runWrites, settleWay, type DeclaredRecord } from "./record-writes.js";

/** A pass and, when it was asked for and made, the slot's next claim. */
export interface PassRun<K extends string> {
  readonly summary: PassSummary;
  /**
   * The next claim made in the pass's settle: `null` when nothing was eligible, absent when
   * the settle could not make it (the caller claims as usual).
   */
  readonly next?: Claim<K> | null;
}

interface Settled<K extends string> {
  readonly declared: DeclaredRecord;
  readonly next?: Claim<K> | null;
}

/** Settles a pass that came to `outcome` (see the module comment). */
export async function settle<K extends string, T, V extends Verdict>(
  deps: PassRunnerDeps<K>,
  handler: WorkHandler<K, T, V>,
  claim: Claim<K>,
  target: T,
  verdict: V | Stopped,
  outcome: PassOutcome,
  next: ClaimOptions<K> | null,
): Promise<PassRun<K>> {
  const { db, queue } = deps;
  const move = QUEUE_MOVES[outcome.kind];
  // A completion leaves the work `succeeded`: its record is known before the move.
  const done = outcome.kind === "done" ? handler.record(claim, target, verdict, "succeeded") : null;
  let settled: Settled<K> | null;
  if (settleWay(outcome, done) === "composed" && done !== null) {
    const parts = composedParts(done.writes);
    const moved = await queue.complete(db, claim.lease, outcome.note, parts, next ?? undefined);
    settled =
      moved.outcome === "stale"
        ? null
        : moved.next === undefined
          ? { declared: done }
          : { declared: done, next: moved.next };
  } else {
    settled = await db.transaction(async (tx) => {
      const moved =
        outcome.kind === "done"
          ? await queue.complete(tx, claim.lease, outcome.note)
          : await queue[move](tx, claim.lease, outcome.note);
      if (moved.outcome === "stale") return null;
      const declared = done ?? handler.record(claim, target, verdict, moved.item.state);
      await runWrites(tx, declared.writes);
      return { declared };
    });
  }
  if (settled === null) return { summary: { result: "stale" } };
  const { declared } = settled;
  declared.announce?.();
  const summary: PassSummary = {
    result: "applied",
    move,
    code: outcome.note?.code ?? null,
    ...(declared.details === undefined ? {} : { details: declared.details }),
  };
  return "next" in settled ? { summary, next: settled.next } : { summary };
}
