/**
 * The closed vocabularies of a platform Namespace (control-plane.md §1, §5) and the one table
 * of its status moves (lifecycle.md §2, §4). The
 * migration's CHECK constraints hold the same lists; `test/unit/store` proves the two agree,
 * value by value, so neither can gain a value the other refuses.
 */
import { OUTCOME_CODES, type OutcomeCode } from "./outcomes.js";
import type { PlacementMode } from "./placement.js";
import { keysOf } from "../input/unknowns.js";

/** Every status of a live Namespace; its moves are {@link NAMESPACE_TRANSITIONS}. */
export const NAMESPACE_STATUSES = [
  "provisioning",
  "ready",
  "degraded",
  "failed",
  "deleting",
] as const;
export type NamespaceStatus = (typeof NAMESPACE_STATUSES)[number];

/**
 * Every move a Namespace's status may make (lifecycle.md §2, §4): provisioning → ready |
 * failed; ready ⇄ degraded; failed | degraded → provisioning (an administrator's retry); any
 * → deleting → `tombstoned` (the row kept with `deletedAt` set). Staying put (a new reason)
 * is not a move and is always allowed.
 */
export const NAMESPACE_TRANSITIONS = {
  provisioning: ["ready", "failed", "deleting"],
  ready: ["degraded", "deleting"],
  degraded: ["ready", "provisioning", "deleting"],
  failed: ["provisioning", "deleting"],
  deleting: ["tombstoned"],
} as const satisfies Record<NamespaceStatus, readonly (NamespaceStatus | "tombstoned")[]>;

/** True when a Namespace in `from` may move to `to` (see {@link NAMESPACE_TRANSITIONS}). */
export function canMoveNamespace(
  from: NamespaceStatus,
  to: NamespaceStatus | "tombstoned",
): boolean {
  const moves: readonly (NamespaceStatus | "tombstoned")[] = NAMESPACE_TRANSITIONS[from];
  return from === to || moves.includes(to);
}

/** Placed and verified once: a pass re-checks it and never adopts anything new. */
export const BOUND_STATUSES = ["ready", "degraded"] as const satisfies readonly NamespaceStatus[];
export type BoundStatus = (typeof BOUND_STATUSES)[number];

/** Statuses an administrator's retry moves back to `provisioning`. */
export const RETRYABLE_STATUSES = [
  "failed",
  "degraded",
] as const satisfies readonly NamespaceStatus[];
export type RetryableStatus = (typeof RETRYABLE_STATUSES)[number];

/** Statuses a pass still works on: provisioning, or bound (resync, watches, rebind). */
export const LIVE_STATUSES = [
  "provisioning",
  ...BOUND_STATUSES,
] as const satisfies readonly NamespaceStatus[];

/** Statuses whose tenant resources take no change at all (the Namespace is done or going). */
export const CLOSED_STATUSES = ["failed", "deleting"] as const satisfies readonly NamespaceStatus[];

function listed(list: readonly string[], status: string): boolean {
  return list.includes(status);
}

export function isBoundStatus(status: string): status is BoundStatus {
  return listed(BOUND_STATUSES, status);
}

export function isRetryableStatus(status: string): status is RetryableStatus {
  return listed(RETRYABLE_STATUSES, status);
}

export function isLiveStatus(status: string): boolean {
  return listed(LIVE_STATUSES, status);
}

export function isClosedStatus(status: string): boolean {
  return listed(CLOSED_STATUSES, status);
}

/** Every placement mode, in the order the spec introduces them. */
export const PLACEMENT_MODES = [
  "managed",
  "external",
  "preprovisioned",
] as const satisfies readonly PlacementMode[];

/**
 * Status codes the control plane itself sets, beside the Driver outcome codes: the worker's
 * re-authorization of the frozen actor failed (control-plane.md §5).
 */
export const CONTROL_PLANE_STATUS_CODES = {
  /** The actor who asked for the work no longer exists. */
  ACTOR_REVOKED: "ACTOR_REVOKED",
  /** The actor exists but current policy no longer grants what the work needs. */
  AUTHORIZATION_DENIED: "AUTHORIZATION_DENIED",
} as const;
export type ControlPlaneStatusCode = keyof typeof CONTROL_PLANE_STATUS_CODES;

/** Every code a Namespace's `statusReason` may carry. */
export const NAMESPACE_STATUS_CODES: readonly (OutcomeCode | ControlPlaneStatusCode)[] = [
  ...OUTCOME_CODES,
  ...keysOf(CONTROL_PLANE_STATUS_CODES),
];
export type NamespaceStatusCode = OutcomeCode | ControlPlaneStatusCode;

/** Why a Namespace is not ready, as the worker reports it. */
export interface StatusReasonInput {
  readonly code: NamespaceStatusCode;
  /** Sanitized again on write (≤ 256 printable characters). */
  readonly message: string;
}
