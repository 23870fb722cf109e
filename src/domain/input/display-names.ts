/**
 * The character policy for display names — the `name` of Namespaces, principals, roles,
 * Secrets, ServiceAccounts and Agents — and for descriptions (API keys, roles, restrictions).
 * A name is what an operator reads on screen to decide which object a command acts on, so it
 * must look like what it is, and be the only string that looks like that:
 *
 * - well-formed Unicode (no unpaired surrogate: it cannot be stored, only replaced);
 * - no control characters (C0, DEL, C1, U+2028/U+2029): a name prints on one line;
 * - no bidirectional controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069), which
 *   reorder what follows them on screen;
 * - no other format characters (Unicode category Cf: zero-width spaces and joiners, the BOM,
 *   the soft hyphen, invisible operators…), which are invisible;
 * - no other invisible or blank character: the default-ignorable code points of Unicode that
 *   are not Cf (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the combining grapheme
 *   joiner, variation selectors — so an emoji is sent without U+FE0F —, Mongolian free
 *   variation selectors, the Khmer inherent vowels, the reserved ones) and the characters that
 *   render as nothing (the blank braille pattern U+2800, the Khitan filler, the null
 *   notehead): `admin` and `admin` + U+3164 print alike;
 * - no leading or trailing whitespace (a lone space included), and no whitespace other than
 *   the plain space U+0020 anywhere (a no-break or ideographic space looks like a space);
 * - in Unicode Normalization Form C, so two names that look the same are the same string;
 * - not mixing scripts whose letters look alike: a Latin name with a Cyrillic `а` is refused
 *   (UTS #39 "moderately restrictive", see `scripts.ts`).
 *
 * Descriptions are free text (any script mix, any spacing) but follow the first five rules:
 * nothing invisible and nothing that reorders the text ({@link checkDescription}).
 *
 * Refusing was chosen over printing such names escaped: an escape only helps where OCC prints
 * the name, while names also reach JSON output, audit events, logs and other tools. A name that breaks a rule is refused, never repaired: the caller learns the
 * field, the rule, the code point and where, and the fix; nothing is stored under a name it
 * did not send.
 */
import { err, ok, type Result } from "./result.js";
import { findMixedScripts } from "./scripts.js";

/** The rules, in the order they are checked; each refusal names one. */
export const DISPLAY_NAME_RULES = [
  "unpaired_surrogate",
  "control_character",
  "bidi_control",
  "format_character",
  "invisible_character",
  "edge_whitespace",
  "other_whitespace",
  "not_nfc",
  "mixed_script",
] as const;
export type DisplayNameRule = (typeof DISPLAY_NAME_RULES)[number];

/** Why a name was refused: the rule, the offending code point (if one) and its index. */
export interface DisplayNameViolation {
  readonly rule: DisplayNameRule;
  /** The code point as `U+XXXX`, when one character breaks the rule. */
  readonly codePoint?: string;
  /** Its position, counted in code points from 0. */
  readonly index?: number;
  /** `mixed_script`: the two scripts that may not be combined, in the order met. */
  readonly scripts?: readonly [string, string];
}

/** What each rule says, for messages and documentation. */
export const DISPLAY_NAME_RULE_TEXT: Readonly<Record<DisplayNameRule, string>> = {
  unpaired_surrogate: "must be well-formed Unicode (no unpaired surrogate)",
  control_character: "must not contain control characters",
  bidi_control: "must not contain bidirectional control characters",
  format_character: "must not contain invisible format characters (Unicode Cf)",
  invisible_character: "must not contain invisible or blank characters",
  edge_whitespace: "must not start or end with whitespace",
  other_whitespace: "must not contain whitespace other than the plain space",
  not_nfc: "must be in Unicode Normalization Form C (NFC)",
  mixed_script: "must be written in one script",
};

/** How to mend a value that breaks each rule. */
export const DISPLAY_NAME_RULE_FIX: Readonly<Record<DisplayNameRule, string>> = {
  unpaired_surrogate: "send well-formed UTF-8",
  control_character: "remove it",
  bidi_control: "remove it",
  format_character: "remove it",
  invisible_character: "remove it (send an emoji without U+FE0F)",
  edge_whitespace: "trim it",
  other_whitespace: "use a plain space (U+0020)",
  not_nfc: "normalize it to NFC",
  mixed_script: "write every letter in the same script",
};

const HIGH = /[\uD800-\uDBFF]/;
const LOW = /[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const FORMAT = /\p{Cf}/u;
/**
 * Default-ignorable code points (Unicode's DerivedCoreProperties) — the Cf ones are caught as
 * format characters first — and characters that render blank: U+2800 BRAILLE PATTERN BLANK,
 * U+16FE4 KHITAN SMALL SCRIPT FILLER, U+1D159 MUSICAL SYMBOL NULL NOTEHEAD.
 */
export const INVISIBLE_CHARACTER =
  // eslint-disable-next-line no-misleading-character-class -- each mark is matched on its own (u flag)
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\u{16fe4}\u{1bca0}-\u{1bca3}\u{1d159}\u{1d173}-\u{1d17a}\u{e0000}-\u{e0fff}]/u;
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

/** The character rules names and descriptions share, in the order they are checked. */
const CHARACTER_RULES: readonly (readonly [DisplayNameRule, RegExp])[] = [
  ["control_character", CONTROL],
  ["bidi_control", BIDI],
  ["format_character", FORMAT],
  ["invisible_character", INVISIBLE_CHARACTER],
];

/** The first violation of {@link CHARACTER_RULES} in `points`, if any. */
function characterViolation(
  value: string,
  points: readonly string[],
): DisplayNameViolation | undefined {
  const surrogate = unpairedSurrogate(value);
  if (surrogate >= 0) return { rule: "unpaired_surrogate", index: surrogate };
  for (const [rule, pattern] of CHARACTER_RULES) {
    const index = points.findIndex((p) => pattern.test(p));
    if (index >= 0) return { rule, codePoint: hex(points[index]?.codePointAt(0) ?? 0), index };
  }
  return undefined;
}

/** `rule` at `index` of `points`, naming the code point there. */
function at(rule: DisplayNameRule, points: readonly string[], index: number): DisplayNameViolation {
  return { rule, codePoint: hex(points[index]?.codePointAt(0) ?? 0), index };
}

/**
 * Checks `value` against the policy (see the module comment). Length is the schema's concern;
 * an empty string passes here.
 */
export function checkDisplayName(value: string): Result<string, DisplayNameViolation> {
  const points = Array.from(value);
  const character = characterViolation(value, points);
  if (character !== undefined) return err(character);
  const last = points.length - 1;
  if (points.length > 0 && WHITESPACE.test(points[0] ?? "")) {
    return err(at("edge_whitespace", points, 0));
  }
  if (last >= 0 && WHITESPACE.test(points[last] ?? "")) {
    return err(at("edge_whitespace", points, last));
  }
  const space = points.findIndex((p) => p !== " " && WHITESPACE.test(p));
  if (space >= 0) return err(at("other_whitespace", points, space));
  if (value.normalize("NFC") !== value) return err({ rule: "not_nfc" });
  const mixed = findMixedScripts(points);
  if (mixed !== undefined) {
    return err({ ...at("mixed_script", points, mixed.index), scripts: mixed.scripts });
  }
  return ok(value);
}

/**
 * Checks a description: free text under the character rules only — well-formed, no control,
 * bidirectional-control, format or other invisible character. Any script, any spacing.
 */
export function checkDescription(value: string): Result<string, DisplayNameViolation> {
  const character = characterViolation(value, Array.from(value));
  return character === undefined ? ok(value) : err(character);
}

/**
 * One sentence for a refusal, naming the field, the rule, the code point and the fix:
 * `<field> <rule text> (U+202E at position 3); remove it.`
 */
export function displayNameMessage(field: string, violation: DisplayNameViolation): string {
  const where =
    violation.codePoint !== undefined
      ? ` (${violation.codePoint} at position ${violation.index ?? 0})`
      : violation.index !== undefined
        ? ` (at position ${violation.index})`
        : "";
  const scripts = violation.scripts;
  const text =
    violation.rule === "mixed_script" && scripts !== undefined
      ? `${DISPLAY_NAME_RULE_TEXT.mixed_script}, not ${scripts[0]} and ${scripts[1]} together (their letters can look alike)`
      : DISPLAY_NAME_RULE_TEXT[violation.rule];
  return `${field} ${text}${where}; ${DISPLAY_NAME_RULE_FIX[violation.rule]}.`;
}
