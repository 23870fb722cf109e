/**
 * One kind of work as the worker loop sees it: its queue and its handler, bound together so
 * the loop can hold every kind in one list (in priority order) without knowing their types.
 * Adding a kind of work is one {@link workEntry} in that list.
 */
import type { Claim, WorkQueue } from "../queue/index.js";
import type { Db } from "../store/db.js";
import { runPass, type PassSummary, type Verdict, type WorkHandler } from "./pass-runner.js";

/** A claimed item and the pass that runs it. */
export interface ClaimedPass {
  readonly claim: Claim<string>;
  run(): Promise<PassSummary>;
}

export interface WorkEntry {
  /** The kinds this entry claims (the loop listens for all of them). */
  readonly kinds: readonly string[];
  /** The oldest eligible item of these kinds on a free lane, ready to run; or `null`. */
  claim(db: Db, owner: string): Promise<ClaimedPass | null>;
  /** When something of these kinds may next become claimable, or `null`. */
  nextWakeAt(db: Db): Promise<Date | null>;
}

/** Binds `handler` to `queue`. */
export function workEntry<K extends string, T, V extends Verdict, R>(
  queue: WorkQueue<K>,
  handler: WorkHandler<K, T, V, R>,
): WorkEntry {
  return {
    kinds: queue.kinds,
    async claim(db, owner) {
      const attach = handler.claimedTarget?.sql;
      const claimed = await queue.claim(db, { owner, ...(attach === undefined ? {} : { attach }) });
      return claimed === null
        ? null
        : { claim: claimed, run: () => runPass({ db, queue }, handler, claimed) };
    },
    nextWakeAt: (db) => queue.nextWakeAt(db),
  };
}
