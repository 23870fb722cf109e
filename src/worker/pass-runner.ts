/**
 * The one pass runner (control-plane.md §5), in the spirit of controller-runtime's reconcile
 * handler: every kind of work supplies a {@link WorkHandler} of four members — its target,
 * the permissions its frozen actor must still hold, its reconcile, and its record — and the
 * runner owns the skeleton every pass shares:
 *
 * 1. a target that is gone or no longer in the state the work expects → complete as
 *    `SUPERSEDED`, no Driver call;
 * 2. a claim whose attempts were all spent by earlier holders that died → stop, no Driver call;
 * 3. re-authorize the frozen actor against current policy (what the target's read decided
 *    beside it is not asked again); a deleted principal or a revoked grant stops the work
 *    (`ACTOR_REVOKED` / `AUTHORIZATION_DENIED`);
 * 4. reconcile while the lease is kept alive;
 * 5. settle: the fenced queue move from the single outcome table (`outcome-table.ts`) and the
 *    kind's declared record, composed into one statement or run in one transaction
 *    (`settle.ts` chooses). A stale lease (another worker took over) publishes nothing; after
 *    commit, the record's best-effort announcement.
 *
 * The target and the record are declarations, not code paths: the target is one subquery the
 * claim reads in its own statement or the runner reads afterwards, the record is one list of
 * writes the settle composes or runs — so a fast path cannot differ from its slow twin.
 */
import type { AuthorizationRequest } from "../iam/authorizer.js";
import type { KnownDecisions } from "../iam/embedded-decisions.js";
import {
  isExhausted,
  type AttachedRow,
  type Claim,
  type ClaimOptions,
  type WorkItem,
  type WorkQueue,
} from "../queue/index.js";
import type { WorkState } from "../queue/work-items.js";
import type { Db } from "../store/db.js";
import type { StatusReasonInput } from "../domain/placement/namespace-status.js";
import type { PassOutcome, QueueMove } from "./outcome-table.js";
import type { DeclaredRecord } from "./record-writes.js";
import { reauthorize } from "./reauthorize.js";
import { settle, type PassRun } from "./settle.js";

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
      /** What the kind's record adds for logs (e.g. the objects a pass repaired). */
      readonly details?: Readonly<Record<string, readonly string[]>>;
    };

/** A kind's verdict: discriminated by `kind`, which is never `stopped` (that is the runner's). */
export interface Verdict {
  readonly kind: string;
}

/** A pass's target as read, and what its read decided of the actor's permissions. */
export interface Targeted<T> {
  readonly target: T;
  readonly known?: KnownDecisions;
}

/**
 * Where a pass's target comes from: one subquery over the claimed work item `c` (at most one
 * row; column names other than the work item's own), which the claim reads in its own statement
 * (`ClaimOptions.attach`) or the runner reads after a claim made without it.
 */
export interface TargetDeclaration<K extends string, T> {
  readonly sql: string;
  /** The target in the subquery's row, or `null` when it is gone or not in the expected state. */
  read(item: WorkItem<K>, row: AttachedRow): Targeted<T> | null;
  /** The message of a `SUPERSEDED` completion. */
  readonly superseded: string;
}

/** A reconcile's verdict and the outcome it takes to the queue. */
export interface Reconciled<V extends Verdict> {
  readonly verdict: V;
  readonly outcome: PassOutcome;
}

/** One kind of work. `T` is what a pass is about, `V` the kind's verdict from its Driver. */
export interface WorkHandler<K extends string, T, V extends Verdict> {
  readonly target: TargetDeclaration<K, T>;
  /** What the frozen actor must still hold; `null` for the system's own work (no one to ask). */
  permissions(item: WorkItem<K>, target: T): readonly AuthorizationRequest[] | null;
  /** The Driver call; the lease is kept alive meanwhile. */
  reconcile(db: Db, item: WorkItem<K>, target: T): Promise<Reconciled<V>>;
  /**
   * What the outcome means for the target, once the queue move left the work in `workState`:
   * writes the settle makes with the move (see `record-writes.ts`). Pure: no I/O.
   */
  record(claim: Claim<K>, target: T, verdict: V | Stopped, workState: WorkState): DeclaredRecord;
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

/** Runs one claimed work item through `handler` (see the module comment). */
export async function runPass<K extends string, T, V extends Verdict>(
  deps: PassRunnerDeps<K>,
  handler: WorkHandler<K, T, V>,
  claim: Claim<K>,
): Promise<PassSummary> {
  return (await runPassAndClaim(deps, handler, claim, null)).summary;
}

/** The target of `claim`: read in its statement, or now with the same subquery. */
export async function targetOf<K extends string, T>(
  deps: PassRunnerDeps<K>,
  declared: TargetDeclaration<K, T>,
  claim: Claim<K>,
): Promise<Targeted<T> | null> {
  const row = claim.attached ?? (await deps.queue.attached(deps.db, claim.item.id, declared.sql));
  return declared.read(claim.item, row);
}

/**
 * {@link runPass}, and — given `next` — the slot's next claim in the same statement as a
 * composed settle: a worker busy with a burst of work then spends two statements a pass, the
 * settle and the claim in one, instead of three.
 */
export async function runPassAndClaim<K extends string, T, V extends Verdict>(
  deps: PassRunnerDeps<K>,
  handler: WorkHandler<K, T, V>,
  claim: Claim<K>,
  next: ClaimOptions<K> | null,
): Promise<PassRun<K>> {
  const { db, queue } = deps;
  const { item, lease } = claim;
  const targeted = await targetOf(deps, handler.target, claim);
  if (targeted === null) {
    const done = await queue.complete(db, lease, {
      code: "SUPERSEDED",
      message: handler.target.superseded,
    });
    return { summary: { result: done.outcome === "applied" ? "superseded" : "stale" } };
  }
  const { target, known } = targeted;
  const stop = (stopped: Stopped) =>
    settle(deps, handler, claim, target, stopped, { kind: "terminal", note: stopped.reason }, null);
  if (isExhausted(claim)) return stop(EXHAUSTED);
  const requests = handler.permissions(item, target);
  if (requests !== null) {
    const denied = await reauthorize(db, item.actor, requests, known);
    if (denied !== null) return stop({ kind: "stopped", reason: denied });
  }
  const keeper = queue.keepAlive(db, lease);
  let reconciled: Reconciled<V>;
  try {
    reconciled = await handler.reconcile(db, item, target);
  } finally {
    await keeper.stop();
  }
  const { verdict, outcome } = reconciled;
  return settle(deps, handler, { item, lease: keeper.current() }, target, verdict, outcome, next);
}
