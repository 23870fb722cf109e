/**
 * The character policy for display names — the `name` of Namespaces, principals, roles,
 * Secrets, ServiceAccounts and Agents. A name is what an operator reads on screen to decide
 * which object a command acts on, so it must look like what it is:
 *
 * - well-formed Unicode (no unpaired surrogate: it cannot be stored, only replaced);
 * - no control characters (C0, DEL, C1, U+2028/U+2029): a name prints on one line;
 * - no bidirectional controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069), which
 *   reorder what follows them on screen;
 * - no other format characters (Unicode category Cf: zero-width spaces and joiners, the BOM,
 *   the soft hyphen, invisible operators…), which are invisible;
 * - no leading or trailing whitespace (a lone space included);
 * - in Unicode Normalization Form C, so two names that look the same are the same string.
 *
 * A name that breaks a rule is refused, never repaired: the caller learns which rule and
 * where, and nothing is stored under a name it did not send.
 */
import { err, ok, type Result } from "./result.js";

/** The rules, in the order they are checked; each refusal names one. */
export const DISPLAY_NAME_RULES = [
  "unpaired_surrogate",
  "control_character",
  "bidi_control",
  "format_character",
  "edge_whitespace",
  "not_nfc",
] as const;
export type DisplayNameRule = (typeof DISPLAY_NAME_RULES)[number];

/** Why a name was refused: the rule, the offending code point (if one) and its index. */
export interface DisplayNameViolation {
  readonly rule: DisplayNameRule;
  /** The code point as `U+XXXX`, when one character breaks the rule. */
  readonly codePoint?: string;
  /** Its position, counted in code points from 0. */
  readonly index?: number;
}

/** What each rule says, for messages and documentation. */
export const DISPLAY_NAME_RULE_TEXT: Readonly<Record<DisplayNameRule, string>> = {
  unpaired_surrogate: "must be well-formed Unicode (no unpaired surrogate)",
  control_character: "must not contain control characters",
  bidi_control: "must not contain bidirectional control characters",
  format_character: "must not contain invisible format characters (Unicode Cf)",
  edge_whitespace: "must not start or end with whitespace",
  not_nfc: "must be in Unicode Normalization Form C (NFC)",
};

const HIGH = /[\uD800-\uDBFF]/;
const LOW = /[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const FORMAT = /\p{Cf}/u;
const WHITESPACE = /^\s$/u;

function hex(point: number): string {
  return `U+${point.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The first unpaired surrogate's index in code points, or -1. */
function unpairedSurrogate(value: string): number {
  let index = 0;
  for (let i = 0; i < value.length; i++, index++) {
    const unit = value[i] ?? "";
    if (HIGH.test(unit)) {
      if (LOW.test(value[i + 1] ?? "")) {
        i++;
        continue;
      }
      return index;
    }
    if (LOW.test(unit)) return index;
  }
  return -1;
}

/**
 * Checks `value` against the policy (see the module comment). Length is the schema's concern;
 * an empty string passes here.
 */
export function checkDisplayName(value: string): Result<string, DisplayNameViolation> {
  const surrogate = unpairedSurrogate(value);
  if (surrogate >= 0) return err({ rule: "unpaired_surrogate", index: surrogate });
  const points = Array.from(value);
  const rules: readonly [DisplayNameRule, RegExp][] = [
    ["control_character", CONTROL],
    ["bidi_control", BIDI],
    ["format_character", FORMAT],
  ];
  for (const [rule, pattern] of rules) {
    const index = points.findIndex((p) => pattern.test(p));
    if (index >= 0) {
      return err({ rule, codePoint: hex(points[index]?.codePointAt(0) ?? 0), index });
    }
  }
  const first = points[0];
  const last = points[points.length - 1];
  if (first !== undefined && WHITESPACE.test(first)) {
    return err({ rule: "edge_whitespace", codePoint: hex(first.codePointAt(0) ?? 0), index: 0 });
  }
  if (last !== undefined && WHITESPACE.test(last)) {
    const index = points.length - 1;
    return err({ rule: "edge_whitespace", codePoint: hex(last.codePointAt(0) ?? 0), index });
  }
  if (value.normalize("NFC") !== value) return err({ rule: "not_nfc" });
  return ok(value);
}

/** One sentence for a refusal: `<field> <rule text> (U+202E at position 3).` */
export function displayNameMessage(field: string, violation: DisplayNameViolation): string {
  const at =
    violation.codePoint !== undefined
      ? ` (${violation.codePoint} at position ${violation.index ?? 0})`
      : violation.index !== undefined
        ? ` (at position ${violation.index})`
        : "";
  return `${field} ${DISPLAY_NAME_RULE_TEXT[violation.rule]}${at}.`;
}
