/**
 * The closed vocabularies of a stored platform Namespace (control-plane.md §1, §5). The
 * migration's CHECK constraints hold the same lists; `test/unit/store` proves the two agree,
 * value by value, so neither can gain a value the other refuses.
 */
import { OUTCOME_CODES, type OutcomeCode } from "./outcomes.js";
import type { PlacementMode } from "./placement.js";

/**
 * provisioning → ready | failed; ready ⇄ degraded; failed | degraded → provisioning (an
 * administrator's retry); any → deleting → (tombstoned, `deletedAt` set). lifecycle.md §2.
 */
export const NAMESPACE_STATUSES = [
  "provisioning",
  "ready",
  "degraded",
  "failed",
  "deleting",
] as const;
export type NamespaceStatus = (typeof NAMESPACE_STATUSES)[number];

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
  ...(Object.keys(CONTROL_PLANE_STATUS_CODES) as ControlPlaneStatusCode[]),
];
export type NamespaceStatusCode = OutcomeCode | ControlPlaneStatusCode;

/** Why a Namespace is not ready, as the worker reports it. */
export interface StatusReasonInput {
  readonly code: NamespaceStatusCode;
  /** Sanitized again on write (≤ 256 printable characters). */
  readonly message: string;
}
