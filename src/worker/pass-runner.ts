/**
 * The one pass runner (control-plane.md §5), in the spirit of controller-runtime's reconcile
 * handler: every kind of work supplies a {@link WorkHandler} — how to load its target, which
 * permissions its frozen actor must still hold, how to reconcile, and how to record the
 * outcome — and the runner owns the skeleton every pass shares:
 *
 * 1. a target that is gone or no longer in the state the work expects → complete as
 *    `SUPERSEDED`, no Driver call;
 * 2. a claim whose attempts were all spent by earlier holders that died → stop, no Driver call;
 * 3. re-authorize the frozen actor against current policy (read in the claim's statement when
 *    the kind decides it there); a deleted principal or a revoked grant stops the work
 *    (`ACTOR_REVOKED` / `AUTHORIZATION_DENIED`);
 * 4. reconcile while the lease is kept alive;
 * 5. settle in one transaction: the fenced queue move from the single outcome table
 *    (`outcome-table.ts`), then the kind's record of what it means — for a `done` pass the
 *    kind may compose that record into the move's own statement (`compose`). A stale lease
 *    (another worker took over) publishes nothing; after commit, the kind's best-effort
 *    announcement.
 */
import type { AuthorizationRequest } from "../iam/authorizer.js";
import type { KnownDecisions } from "../iam/embedded-decisions.js";
import {
  isExhausted,
  type Claim,
  type ClaimOptions,
  type WorkItem,
  type WorkQueue,
} from "../queue/index.js";
import type { WorkState } from "../queue/work-items.js";
import type { GatedPart } from "../store/composed.js";
import type { Db, Queryable } from "../store/db.js";
import type { StatusReasonInput } from "../domain/placement/namespace-status.js";
import { QUEUE_MOVES, type PassOutcome, type QueueMove } from "./outcome-table.js";
import { reauthorize } from "./reauthorize.js";

/**
 * A pass the runner ended before the Driver call, with its permanent reason: the attempts were
 * spent by dead workers, or the frozen actor lost its grant or no longer exists.
 */
export interface Stopped {
  readonly kind: "stopped";
  readonly reason: StatusReasonInput;
}

/** What one claim came to, for logs and metrics. */
export type PassSummary =
  | { readonly result: "superseded" | "stale" }
  | {
      readonly result: "applied";
      readonly move: QueueMove;
      readonly code: string | null;
      /** Kinds of the owned objects written back after drift (bound tenants only). */
      readonly repaired?: readonly string[];
    };

/**
 * A kind's record of a `done` pass as writes composed into the fenced completion itself
 * (`composed.ts`): one statement, its own transaction, where the settle transaction costs
 * BEGIN, the move, each record write and COMMIT. `recorded` is what `record` would return.
 */
export interface ComposedRecord<R> {
  readonly parts: readonly GatedPart[];
  readonly recorded: R;
}

/** A kind's verdict: discriminated by `kind`, which is never `stopped` (that is the runner's). */
export interface Verdict {
  readonly kind: string;
}

/**
 * One kind of work. `T` is what a pass is about (loaded once, before anything else), `V` the
 * kind's verdict from its Driver, `R` what its record step found (handed to `announce`).
 */
export interface WorkHandler<K extends string, T, V extends Verdict, R> {
  /** The message of a `SUPERSEDED` completion. */
  readonly superseded: string;
  /** The target, or `null` when it is gone or not in the state this work expects. */
  load(db: Db, item: WorkItem<K>): Promise<T | null>;
  /**
   * Optional: {@link load} as a subquery of the claim's own statement (the queue's `attach`,
   * over the claimed row `c`), a round trip less per pass; `target` answers what `load` would
   * from the row it read.
   */
  readonly claimedTarget?: {
    readonly sql: string;
    target(item: WorkItem<K>, row: Readonly<Record<string, unknown>>): T | null;
    /**
     * Optional: the re-authorization of the frozen actor read in the same subquery
     * (`embedded-decisions.ts`); a request it did not decide is decided by a round trip.
     */
    readonly decided?: (row: Readonly<Record<string, unknown>>, target: T) => KnownDecisions;
  };
  /** What the frozen actor must still hold; `null` for the system's own work (no one to ask). */
  permissions(item: WorkItem<K>, target: T): readonly AuthorizationRequest[] | null;
  /** The Driver call; the lease is kept alive meanwhile. */
  reconcile(db: Db, item: WorkItem<K>, target: T): Promise<V>;
  /** The outcome of a verdict (a stop is always `terminal`). */
  outcomeOf(target: T, verdict: V): PassOutcome;
  /** In the settle transaction, after the queue move was applied with `workState` as result. */
  record(
    tx: Queryable,
    claim: Claim<K>,
    target: T,
    verdict: V | Stopped,
    workState: WorkState,
  ): Promise<R>;
  /**
   * Optional: for a pass whose outcome is `done` (work state `succeeded`), the same record as
   * writes composed into the completion, or `null` to record it with `record` as usual. It must
   * write exactly what `record` would.
   */
  readonly compose?: (claim: Claim<K>, target: T, verdict: V) => ComposedRecord<R> | null;
  /** After commit, best effort: tell the world (never awaited for the outcome). */
  announce?(target: T, verdict: V | Stopped, recorded: R): void;
  /** After settle, whatever it found: adjust the summary of a reconciled pass. */
  summarize?(verdict: V, summary: PassSummary): PassSummary;
}

export interface PassRunnerDeps<K extends string> {
  readonly db: Db;
  readonly queue: WorkQueue<K>;
}

const EXHAUSTED: Stopped = {
  kind: "stopped",
  reason: {
    code: "KUBERNETES_API_UNAVAILABLE",
    message: "every attempt was spent by workers that stopped mid-attempt",
  },
};

/** A pass and, when it was asked for and made, the slot's next claim. */
export interface PassRun<K extends string> {
  readonly summary: PassSummary;
  /**
   * The next claim made in the pass's settle (see {@link runPassAndClaim}): `null` when nothing
   * was eligible, absent when the settle could not make it (the caller claims as usual).
   */
  readonly next?: Claim<K> | null;
}

/** Runs one claimed work item through `handler` (see the module comment). */
export async function runPass<K extends string, T, V extends Verdict, R>(
  deps: PassRunnerDeps<K>,
  handler: WorkHandler<K, T, V, R>,
  claim: Claim<K>,
): Promise<PassSummary> {
  return (await runPassAndClaim(deps, handler, claim, null)).summary;
}

/**
 * {@link runPass}, and — given `next` — the slot's next claim in the same statement as a
 * composed settle: a worker busy with a burst of work then spends two statements a pass, the
 * settle and the claim in one, instead of three.
 */
export async function runPassAndClaim<K extends string, T, V extends Verdict, R>(
  deps: PassRunnerDeps<K>,
  handler: WorkHandler<K, T, V, R>,
  claim: Claim<K>,
  next: ClaimOptions<K> | null,
): Promise<PassRun<K>> {
  const { db, queue } = deps;
  const { item, lease } = claim;
  const target =
    claim.attached !== undefined && handler.claimedTarget !== undefined
      ? handler.claimedTarget.target(item, claim.attached)
      : await handler.load(db, item);
  if (target === null) {
    const done = await queue.complete(db, lease, {
      code: "SUPERSEDED",
      message: handler.superseded,
    });
    return { summary: { result: done.outcome === "applied" ? "superseded" : "stale" } };
  }
  if (isExhausted(claim)) return settle(deps, handler, claim, target, EXHAUSTED, null);
  const requests = handler.permissions(item, target);
  if (requests !== null) {
    const decided = handler.claimedTarget?.decided;
    const known =
      claim.attached === undefined || decided === undefined
        ? undefined
        : decided(claim.attached, target);
    const denied = await reauthorize(db, item.actor, requests, known);
    if (denied !== null) {
      return settle(deps, handler, claim, target, { kind: "stopped", reason: denied }, null);
    }
  }
  const keeper = queue.keepAlive(db, lease);
  let verdict: V;
  try {
    verdict = await handler.reconcile(db, item, target);
  } finally {
    await keeper.stop();
  }
  const settled = await settle(
    deps,
    handler,
    { item, lease: keeper.current() },
    target,
    verdict,
    next,
  );
  return handler.summarize === undefined
    ? settled
    : { ...settled, summary: handler.summarize(verdict, settled.summary) };
}

/** A kind's own verdicts never use the kind `stopped` (see {@link Verdict}). */
function isStopped(verdict: Verdict): verdict is Stopped {
  return verdict.kind === "stopped";
}

/**
 * The fenced move and the kind's record in one transaction; then its announcement. A composed
 * record also makes the `next` claim, when one is asked for.
 */
async function settle<K extends string, T, V extends Verdict, R>(
  deps: PassRunnerDeps<K>,
  handler: WorkHandler<K, T, V, R>,
  claim: Claim<K>,
  target: T,
  verdict: V | Stopped,
  next: ClaimOptions<K> | null,
): Promise<PassRun<K>> {
  const { queue } = deps;
  const outcome: PassOutcome = isStopped(verdict)
    ? { kind: "terminal", note: verdict.reason }
    : handler.outcomeOf(target, verdict);
  const move = QUEUE_MOVES[outcome.kind];
  const composed =
    outcome.kind === "done" && !isStopped(verdict)
      ? (handler.compose?.(claim, target, verdict) ?? null)
      : null;
  const settled =
    composed !== null
      ? await settleComposed(deps, claim, outcome, composed, next)
      : await deps.db.transaction(async (tx) => {
          const moved =
            outcome.kind === "done"
              ? await queue.complete(tx, claim.lease, outcome.note)
              : await queue[move](tx, claim.lease, outcome.note);
          if (moved.outcome === "stale") return null;
          return { recorded: await handler.record(tx, claim, target, verdict, moved.item.state) };
        });
  if (settled === null) return { summary: { result: "stale" } };
  handler.announce?.(target, verdict, settled.recorded);
  const summary: PassSummary = { result: "applied", move, code: outcome.note?.code ?? null };
  return "next" in settled ? { summary, next: settled.next } : { summary };
}

/** The composed record: the fenced completion and the kind's writes as one statement. */
async function settleComposed<K extends string, R>(
  deps: PassRunnerDeps<K>,
  claim: Claim<K>,
  outcome: PassOutcome,
  composed: ComposedRecord<R>,
  next: ClaimOptions<K> | null,
): Promise<{ recorded: R; next?: Claim<K> | null } | null> {
  const done = await deps.queue.complete(
    deps.db,
    claim.lease,
    outcome.note,
    composed.parts,
    next ?? undefined,
  );
  if (done.outcome === "stale") return null;
  return done.next === undefined
    ? { recorded: composed.recorded }
    : { recorded: composed.recorded, next: done.next };
}
