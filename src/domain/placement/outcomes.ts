/**
 * Outcome codes and results of `ensureNamespace` / `deleteNamespace` (placement.md §4, §6, §7).
 *
 * The code vocabulary is closed and each code has exactly one outcome class, defined once in
 * `OUTCOME_CLASS_BY_CODE`. Results are built only through `notDone`, which reads that table,
 * so no caller ever decides "retryable" by hand or by matching message text.
 */
import { sanitizeReason } from "../input/reason.js";
import { keysOf } from "../input/unknowns.js";

/** How the worker treats a result: retry later for free, retry with backoff, or stop. */
export type OutcomeClass = "pending" | "retryable" | "permanent";

/**
 * Every outcome code with its class. The §7 table, plus `KUBERNETES_NAMESPACE_PENDING`: §4.1
 * step 3 and §6 ("terminating → pending") need a code for "the namespace is still converging"
 * and §7 has none whose class is pending apart from the permission case.
 */
export const OUTCOME_CLASS_BY_CODE = {
  /** Foreign/partial markers, wrong lifecycle, Pod Security, duplicate claim, UID changed… */
  KUBERNETES_OWNERSHIP_CONFLICT: "permanent",
  /** The selected, preprovisioned or bound namespace does not exist (lifecycle.md §3). */
  KUBERNETES_NAMESPACE_MISSING: "permanent",
  /**
   * The bound namespace was deleted and recreated under the same name: its metadata.uid is not
   * the recorded one (lifecycle.md §3). Never used silently.
   */
  KUBERNETES_NAMESPACE_REPLACED: "permanent",
  /** An external or preprovisioned namespace is not Active or is terminating. */
  KUBERNETES_NAMESPACE_INACTIVE: "permanent",
  /** A managed namespace is not created/Active yet, or a deletion is still in progress. */
  KUBERNETES_NAMESPACE_PENDING: "pending",
  /** 403 after the namespace was verified: the tenant RoleBinding is missing. */
  KUBERNETES_PERMISSION_PENDING: "pending",
  /** 409 from an unrelated concurrent change. */
  KUBERNETES_CONFLICT: "retryable",
  /** Unreachable, 429 or 5xx. */
  KUBERNETES_API_UNAVAILABLE: "retryable",
  /** A request deadline passed. */
  KUBERNETES_API_TIMEOUT: "retryable",
  /** Any other 4xx (400, 401, 403 before verification, 422). */
  KUBERNETES_API_REJECTED: "permanent",
  /** The Installation configuration cannot produce a valid object. */
  CONFIGURATION_INVALID: "permanent",
  /** The Sandbox Driver's gateway (OpenShell) is unreachable, overloaded or timed out. */
  SANDBOX_GATEWAY_UNAVAILABLE: "retryable",
  /** The Sandbox Driver's gateway refused a request (authentication, arguments, ownership). */
  SANDBOX_GATEWAY_REJECTED: "permanent",
  /** The tenant's sandbox Workspace is terminating; it is recreated once it is gone. */
  SANDBOX_WORKSPACE_PENDING: "pending",
} as const satisfies Readonly<Record<string, OutcomeClass>>;

/** A stable outcome code. */
export type OutcomeCode = keyof typeof OUTCOME_CLASS_BY_CODE;

/** Every outcome code, in table order. */
export const OUTCOME_CODES: readonly OutcomeCode[] = keysOf(OUTCOME_CLASS_BY_CODE);

/** Codes whose class is `pending`. */
export type PendingCode = {
  [C in OutcomeCode]: (typeof OUTCOME_CLASS_BY_CODE)[C] extends "pending" ? C : never;
}[OutcomeCode];

/** Codes whose class is `retryable` or `permanent`. */
export type FailureCode = Exclude<OutcomeCode, PendingCode>;

/** The class of a code — the single mapping the worker consults. */
export function outcomeClassOf(code: OutcomeCode): OutcomeClass {
  return OUTCOME_CLASS_BY_CODE[code];
}

/** True when `value` is one of the codes (for decoding stored status reasons). */
export function isOutcomeCode(value: unknown): value is OutcomeCode {
  return (
    typeof value === "string" && Object.prototype.hasOwnProperty.call(OUTCOME_CLASS_BY_CODE, value)
  );
}

/** Not ready yet, and not a failure: retry later without spending an attempt. */
export interface Pending {
  readonly outcome: "pending";
  readonly code: PendingCode;
  readonly reason: string;
}

/** A failure; `retryable` follows from the code's class. */
export interface Failed {
  readonly outcome: "failed";
  readonly code: FailureCode;
  readonly reason: string;
  readonly retryable: boolean;
}

/** The two "not done" results shared by ensure and delete. */
export type NotDone = Pending | Failed;

/** The namespace is placed, verified and its owned objects reconciled. */
export interface Ready {
  readonly outcome: "ready";
  readonly uid: string;
  readonly namespaceName: string;
}

/** The tenant's Kubernetes side is gone (or was never OCC's to remove). */
export interface Deleted {
  readonly outcome: "deleted";
}

/** Result of `ComputeDriver.ensureNamespace`. */
export type EnsureNamespaceResult = Ready | NotDone;

/** Result of `ComputeDriver.deleteNamespace`. */
export type DeleteNamespaceResult = Deleted | NotDone;

/** Builds a ready result. */
export function ready(uid: string, namespaceName: string): Ready {
  return { outcome: "ready", uid, namespaceName };
}

/** The deleted result. */
export function deleted(): Deleted {
  return { outcome: "deleted" };
}

/**
 * Builds the pending or failed result for `code`, its class taken from the table. The reason
 * is sanitized (≤ 256 characters, no control characters) and every string in `forbidden` —
 * foreign IDs, names of objects that may belong to another tenant — is redacted from it.
 */
export function notDone(
  code: OutcomeCode,
  reason: string,
  forbidden: readonly string[] = [],
): NotDone {
  return isPendingCode(code) ? pending(code, reason, forbidden) : failed(code, reason, forbidden);
}

/** A pending result with a sanitized reason (see {@link notDone}). */
export function pending(
  code: PendingCode,
  reason: string,
  forbidden: readonly string[] = [],
): Pending {
  return { outcome: "pending", code, reason: sanitizeReason(reason, forbidden) };
}

/** A failed result; `retryable` follows from the code's class (see {@link notDone}). */
export function failed(
  code: FailureCode,
  reason: string,
  forbidden: readonly string[] = [],
): Failed {
  return {
    outcome: "failed",
    code,
    reason: sanitizeReason(reason, forbidden),
    retryable: OUTCOME_CLASS_BY_CODE[code] === "retryable",
  };
}

function isPendingCode(code: OutcomeCode): code is PendingCode {
  return OUTCOME_CLASS_BY_CODE[code] === "pending";
}
