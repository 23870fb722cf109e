/**
 * The queue port: one object per kind vocabulary, binding the policy, clock and randomness
 * once so that callers pass only what varies — the `Queryable` (to compose with their own
 * transaction) and the work. The operations themselves live in one module per concern.
 */
import type { GatedPart } from "../store/composed.js";
import type { Db, Queryable } from "../store/db.js";
import { readAttached, type AttachedRow } from "./attach.js";
import { claim, nextWakeAt, type ClaimOptions } from "./claim.js";
import type { QueueClock } from "./clock.js";
import {
  enqueue,
  reopen,
  type EnqueueInput,
  type EnqueueResult,
  type ReopenInput,
  type ReopenResult,
} from "./enqueue.js";
import {
  keepLeaseAlive,
  renew,
  type KeepAliveOptions,
  type LeaseKeeper,
  type RenewResult,
} from "./lease-renewal.js";
import { DEFAULT_WORK_QUEUE_POLICY, validatePolicy, type WorkQueuePolicy } from "./policy.js";
import { actorOfKey, pullForward } from "./requeue.js";
import { queueDepth, type KindDepth } from "./stats.js";
import { complete, defer, fail, release, retry, type TransitionResult } from "./transitions.js";
import {
  workItemsTable,
  type Claim,
  type Lease,
  type QueueConfig,
  type WorkNote,
} from "./work-items.js";

export interface WorkQueue<K extends string> {
  readonly kinds: readonly K[];
  readonly policy: WorkQueuePolicy;
  /** Where its statements read "now" (`clock.ts`). */
  readonly clock: QueueClock;
  /** Idempotent by key; NOTIFYs on create. See `enqueue.ts`. */
  enqueue(q: Queryable, input: EnqueueInput<K>): Promise<EnqueueResult<K>>;
  /** Requeues a `failed_permanent` item with a fresh budget. See `enqueue.ts`. */
  reopen(q: Queryable, input: ReopenInput): Promise<ReopenResult<K>>;
  /** Queued items of `kind` in lane `subject` available now; one's ID. See `requeue.ts`. */
  pullForward(q: Queryable, subject: string, kind: K): Promise<string | null>;
  /** The frozen actor of the item holding `key`. */
  actorOf(q: Queryable, key: string): Promise<string | undefined>;
  /** The oldest eligible item on a free lane, or `null`. Outside transactions. See `claim.ts`. */
  claim(db: Db, opts: ClaimOptions<K>): Promise<Claim<K> | null>;
  /** The subquery a claim attaches (`ClaimOptions.attach`), read over the item afterwards. */
  attached(q: Queryable, itemId: string, attach: string): Promise<AttachedRow>;
  /** Extends an unexpired lease. */
  renew(q: Queryable, lease: Lease): Promise<RenewResult>;
  /** Renews in the background while a Driver call runs. */
  keepAlive(q: Queryable, lease: Lease, opts?: KeepAliveOptions): LeaseKeeper;
  /**
   * Fenced: → succeeded; `gated` writes ride in the same statement, only if it applied, and so
   * does the `next` claim (`q` must then be the `Db`, as for `claim`).
   */
  complete(
    q: Queryable,
    lease: Lease,
    note?: WorkNote,
    gated?: readonly GatedPart[],
    next?: ClaimOptions<K>,
  ): Promise<TransitionResult<K>>;
  /** Fenced: → queued with backoff, or failed_permanent when attempts or time are spent. */
  retry(q: Queryable, lease: Lease, note: WorkNote): Promise<TransitionResult<K>>;
  /** Fenced: pending → queued with a short backoff, attempt refunded; past deadline → failed. */
  defer(q: Queryable, lease: Lease, note: WorkNote): Promise<TransitionResult<K>>;
  /** Fenced: → failed_permanent. */
  fail(q: Queryable, lease: Lease, note: WorkNote): Promise<TransitionResult<K>>;
  /** Fenced: → queued now, attempt refunded (shutdown). */
  release(q: Queryable, lease: Lease): Promise<TransitionResult<K>>;
  /** Depth and age per kind, for metrics. */
  depth(q: Queryable): Promise<readonly KindDepth<K>[]>;
  /** When something may next become claimable, or `null` when nothing is open. */
  nextWakeAt(q: Queryable, kinds?: readonly K[]): Promise<Date | null>;
}

export interface WorkQueueOptions<K extends string> {
  /** The kinds this queue handles; rows of other kinds are never claimed by it. */
  readonly kinds: readonly K[];
  /** Overrides of {@link DEFAULT_WORK_QUEUE_POLICY}. */
  readonly policy?: Partial<WorkQueuePolicy>;
  /** Default `"database"`: the server's clock (see `clock.ts`). */
  readonly clock?: QueueClock;
  /** Default `Math.random`; inject for deterministic backoff in tests. */
  readonly random?: () => number;
}

const KIND_PATTERN = /^[a-z][a-z0-9_.-]{0,62}$/;

/** Creates the queue for a kind vocabulary (which must match the table's kind format). */
export function createWorkQueue<const K extends string>(opts: WorkQueueOptions<K>): WorkQueue<K> {
  if (opts.kinds.length === 0) throw new RangeError("work queue: at least one kind is required");
  for (const kind of opts.kinds) {
    if (!KIND_PATTERN.test(kind)) {
      throw new RangeError(
        `work queue: kind ${JSON.stringify(kind)} must match ${String(KIND_PATTERN)}`,
      );
    }
  }
  const config: QueueConfig<K> = {
    kinds: [...opts.kinds],
    policy: validatePolicy({ ...DEFAULT_WORK_QUEUE_POLICY, ...opts.policy }),
    clock: opts.clock ?? "database",
    random: opts.random ?? Math.random,
    table: workItemsTable(opts.kinds),
  };
  return {
    kinds: config.kinds,
    policy: config.policy,
    clock: config.clock,
    enqueue: (q, input) => enqueue(config, q, input),
    reopen: (q, input) => reopen(config, q, input),
    pullForward: (q, subject, kind) => pullForward(config, q, subject, kind),
    actorOf: (q, key) => actorOfKey(config, q, key),
    claim: (db, claimOpts) => claim(config, db, claimOpts),
    attached: readAttached,
    renew: (q, lease) => renew(config, q, lease),
    keepAlive: (q, lease, keepOpts) => keepLeaseAlive(config, q, lease, keepOpts),
    complete: (q, lease, note, gated, next) => complete(config, q, lease, note, gated, next),
    retry: (q, lease, note) => retry(config, q, lease, note),
    defer: (q, lease, note) => defer(config, q, lease, note),
    fail: (q, lease, note) => fail(config, q, lease, note),
    release: (q, lease) => release(config, q, lease),
    depth: (q) => queueDepth(config, q),
    nextWakeAt: (q, kinds) => nextWakeAt(config, q, kinds),
  };
}
