/**
 * The `work_items` table as the queue sees it: states, the row type, the lease a claim hands
 * out, and the configuration every queue operation reads. Generic over the kind vocabulary
 * `K`, which the caller supplies; the queue never interprets kinds or subjects.
 */
import { defineTable, integer, nullable, oneOf, text, timestamp } from "../store/columns.js";
import type { RowOf } from "../store/columns.js";
import type { QueueClock } from "./clock.js";
import type { WorkQueuePolicy } from "./policy.js";

/** queued → claimed → succeeded | failed_permanent, or back to queued (retry, pending, expiry). */
export const WORK_STATES = ["queued", "claimed", "succeeded", "failed_permanent"] as const;
export type WorkState = (typeof WORK_STATES)[number];

/** The channel every enqueue notifies, with the item's kind as payload. */
export const WORK_CHANNEL = "occ_work";

/** The row definition for a kind vocabulary. The claim token is deliberately not a column here. */
export function workItemsTable<K extends string>(kinds: readonly K[]) {
  return defineTable("work_items", {
    id: text,
    idempotencyKey: text,
    kind: oneOf(kinds),
    subject: text,
    actor: text,
    state: oneOf(WORK_STATES),
    attemptCount: integer,
    maxAttempts: integer,
    pendingCount: integer,
    availableAt: timestamp,
    deadlineAt: timestamp,
    claimedBy: nullable(text),
    leaseExpiresAt: nullable(timestamp),
    lastCode: nullable(text),
    lastMessage: nullable(text),
    createdAt: timestamp,
    updatedAt: timestamp,
    finishedAt: nullable(timestamp),
  });
}

/** One work item. `attemptCount` includes the current claim while the item is claimed. */
export type WorkItem<K extends string> = RowOf<ReturnType<typeof workItemsTable<K>>["columns"]>;

/**
 * Proof of a claim. Every state change presents it; the database accepts the change only while
 * the token is the item's current one and the lease has not expired.
 */
export interface Lease {
  readonly itemId: string;
  readonly token: string;
  /** The attempt this claim is (1-based); it can exceed `maxAttempts` — see `claim`. */
  readonly attempt: number;
  /** Consecutive pending outcomes before this claim. */
  readonly pendingCount: number;
  readonly expiresAt: Date;
}

/** A claimed item and its lease. */
export interface Claim<K extends string> {
  readonly item: WorkItem<K>;
  readonly lease: Lease;
  /** The raw row of the claim's `attach` subquery (`claim.ts`), when it was given one. */
  readonly attached?: Readonly<Record<string, unknown>>;
}

/** What every queue operation reads: the kind vocabulary, policy, clock and randomness. */
export interface QueueConfig<K extends string> {
  readonly kinds: readonly K[];
  readonly policy: WorkQueuePolicy;
  readonly clock: QueueClock;
  /** A number in [0, 1) for backoff jitter. */
  readonly random: () => number;
  readonly table: ReturnType<typeof workItemsTable<K>>;
}

/** An outcome code (`^[A-Z][A-Z0-9_]{0,63}$`) and a message, kept as the item's last outcome. */
export interface WorkNote {
  readonly code: string;
  readonly message: string;
}

/** The stored message limit; callers sanitize content, the queue only bounds length. */
export const MAX_NOTE_LENGTH = 256;

/** Cuts a message to {@link MAX_NOTE_LENGTH} code points (never half a surrogate pair). */
export function clipMessage(message: string): string {
  const points = Array.from(message);
  return points.length <= MAX_NOTE_LENGTH ? message : points.slice(0, MAX_NOTE_LENGTH).join("");
}
