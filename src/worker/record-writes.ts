/**
 * A kind's record of a pass, declared: the writes that say what the outcome means for its
 * target, which the runner makes with the queue move. A write is either composable — a gated
 * part (`store/composed.ts`) that can ride in the move's own statement — or a step only a
 * transaction can run (several statements, or one that must be able to throw). The runner,
 * not the kind, chooses how to settle ({@link settleWay}); both ways make the same writes.
 */
import type { GatedPart } from "../store/composed.js";
import type { Queryable } from "../store/db.js";
import { runGated } from "../store/gated-writes.js";
import type { PassOutcome } from "./outcome-table.js";

export type RecordWrite =
  { readonly composable: GatedPart } | { readonly run: (tx: Queryable) => Promise<unknown> };

/** What a kind's record comes to. */
export interface DeclaredRecord {
  /** In order. */
  readonly writes: readonly RecordWrite[];
  /** After commit, best effort: tell the world (never awaited for the outcome). */
  readonly announce?: () => void;
  /** Added to the pass's summary when the settle applied (logs). */
  readonly details?: Readonly<Record<string, readonly string[]>>;
}

/** A write that can ride in the move's statement. */
export function composable(part: GatedPart): RecordWrite {
  return { composable: part };
}

/** A write only a transaction can run. */
export function inTransaction(run: (tx: Queryable) => Promise<unknown>): RecordWrite {
  return { run };
}

/**
 * How a pass settles:
 * - `composed`: the fenced completion and every write in one statement (its own transaction,
 *   and the slot's next claim with it) — a `done` outcome whose writes are all composable;
 * - `plain`: a transaction — the move, then the writes (the record of every other outcome
 *   depends on where the move left the work, which only the move can tell).
 */
export type SettleWay = "composed" | "plain";

/** The runner's choice (see {@link SettleWay}); `done` is the record of a `done` outcome. */
export function settleWay(outcome: PassOutcome, done: DeclaredRecord | null): SettleWay {
  if (outcome.kind !== "done" || done === null) return "plain";
  return done.writes.every((w) => "composable" in w) ? "composed" : "plain";
}

/** The parts of all-composable `writes` (see {@link settleWay}). */
export function composedParts(writes: readonly RecordWrite[]): readonly GatedPart[] {
  return writes.flatMap((w) => ("composable" in w ? [w.composable] : []));
}

/** Runs `writes` in order in the settle transaction; consecutive composable ones as one statement. */
export async function runWrites(tx: Queryable, writes: readonly RecordWrite[]): Promise<void> {
  let parts: GatedPart[] = [];
  for (const write of writes) {
    if ("composable" in write) {
      parts.push(write.composable);
      continue;
    }
    await runGated(tx, parts);
    parts = [];
    await write.run(tx);
  }
  await runGated(tx, parts);
}
