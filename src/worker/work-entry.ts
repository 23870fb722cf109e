/**
 * One kind of work as the worker loop sees it: its queue and its handler, bound together so
 * the loop can hold every kind in one list (in priority order) without knowing their types.
 * Adding a kind of work is one {@link workEntry} in that list.
 */
import type { Claim, ClaimOptions, WorkQueue } from "../queue/index.js";
import type { Db } from "../store/db.js";
import {
  runPassAndClaim,
  type PassSummary,
  type Verdict,
  type WorkHandler,
} from "./pass-runner.js";

/** A claimed item and the pass that runs it. */
export interface ClaimedPass {
  readonly claim: Claim<string>;
  /**
   * Runs the pass. An entry that chains (see {@link workEntry}) also claims the slot's next
   * item of its kinds in the pass's settle: `next` is that pass, `null` when nothing of its
   * kinds was eligible; absent when no claim was made (the loop claims as usual).
   */
  run(): Promise<{ readonly summary: PassSummary; readonly next?: ClaimedPass | null }>;
  /** Gives the claim back unrun (the worker is stopping): queued now, its attempt refunded. */
  release(): Promise<void>;
}

export interface WorkEntry {
  /** The kinds this entry claims (the loop listens for all of them). */
  readonly kinds: readonly string[];
  /** The oldest eligible item of these kinds on a free lane, ready to run; or `null`. */
  claim(db: Db, owner: string): Promise<ClaimedPass | null>;
  /** When something of these kinds may next become claimable, or `null`. */
  nextWakeAt(db: Db): Promise<Date | null>;
}

/**
 * Binds `handler` to `queue`. With `chain`, a pass's settle also claims the slot's next item
 * of the same kinds — only for the first entry of the loop's list, whose work comes before
 * every other kind anyway, so that chaining never lets later kinds overtake it.
 */
export function workEntry<K extends string, T, V extends Verdict>(
  queue: WorkQueue<K>,
  handler: WorkHandler<K, T, V>,
  opts: { readonly chain?: boolean } = {},
): WorkEntry {
  /** How this entry claims for `owner`: its kinds, with the handler's target attached. */
  const claimOptions = (owner: string): ClaimOptions<K> => ({
    owner,
    attach: handler.target.sql,
  });
  const passOf = (db: Db, owner: string, claimed: Claim<K>): ClaimedPass => ({
    claim: claimed,
    async run() {
      const next = opts.chain === true ? claimOptions(owner) : null;
      const ran = await runPassAndClaim({ db, queue }, handler, claimed, next);
      if (ran.next === undefined) return { summary: ran.summary };
      return {
        summary: ran.summary,
        next: ran.next === null ? null : passOf(db, owner, ran.next),
      };
    },
    async release() {
      await queue.release(db, claimed.lease);
    },
  });
  return {
    kinds: queue.kinds,
    async claim(db, owner) {
      const claimed = await queue.claim(db, claimOptions(owner));
      return claimed === null ? null : passOf(db, owner, claimed);
    },
    nextWakeAt: (db) => queue.nextWakeAt(db),
  };
}
