/**
 * Violations: one failed requirement each, with its outcome code and a message that says
 * what is wrong and how to fix it.
 *
 * Verdicts return every violation they find (a preflight lists all failing requirements, not
 * the first); a driver turns them into one result with {@link notDoneFromViolations}. Messages
 * name keys, never observed values, so another tenant's ID cannot leak through them.
 */
import { notDone, type NotDone, type OutcomeCode } from "./outcomes.js";

/** The requirement a violation is about — a closed vocabulary for programs and tests. */
export const CHECKS = [
  "missing",
  "lifecycle",
  "pod-security",
  "foreign-marker",
  "partial-marker",
  "tenant-markers",
  "manager-label",
  "managed-name",
  "active",
  "terminating",
  "exclusive-claim",
  "explicit-selection",
  "network-policies",
  "uid",
  "incomplete-read",
  "preprovisioned",
  "role-binding",
  "operator-label",
] as const;

/** One of {@link CHECKS}. */
export type CheckId = (typeof CHECKS)[number];

/** A failed requirement. `key` is the label/annotation concerned, when there is one. */
export interface Violation {
  readonly check: CheckId;
  readonly code: OutcomeCode;
  readonly key: string | null;
  readonly message: string;
}

/** A non-empty list of violations, most significant first. */
export type Violations = readonly [Violation, ...Violation[]];

/** Builds a violation. */
export function violation(
  check: CheckId,
  code: OutcomeCode,
  message: string,
  key: string | null = null,
): Violation {
  return { check, code, key, message };
}

/** The list as {@link Violations} when non-empty, else `null`. */
export function nonEmpty(list: readonly Violation[]): Violations | null {
  const [first, ...rest] = list;
  return first === undefined ? null : [first, ...rest];
}

/**
 * One result for a list of violations: the first violation decides the code (verdicts put
 * ownership problems before activity problems), and the messages are joined.
 */
export function notDoneFromViolations(violations: Violations): NotDone {
  return notDone(violations[0].code, violations.map((v) => v.message).join("; "));
}
