/**
 * The mixed-script rule of display names: a name may not combine scripts whose letters look
 * alike, so that `pаypal` with a Cyrillic `а` (U+0430) cannot pass for `paypal`. It is the
 * "moderately restrictive" level of Unicode Technical Standard #39 (§5.2), applied to the
 * whole name; characters of the Common and Inherited scripts (digits, punctuation, spaces,
 * symbols, emoji, combining marks) belong to every script and never count. Allowed:
 *
 * - one script (`support`, `поддержка`, `客服`, `サポート`);
 * - Latin with Han and kana (Japanese), with Han and Bopomofo, or with Han and Hangul;
 * - Latin with one other recommended script (UTS #31, Table 5) that has no letters shaped like
 *   Latin ones: any but Cyrillic and Greek (`Support مساعد`, `Team हिंदी`).
 *
 * A letter of a script outside UTS #31's recommended list (Cherokee, Runic, …) may only be
 * combined with letters of that same group. The rule does not catch a name written wholly in
 * another script whose letters happen to look Latin (Cyrillic `аре`); UTS #39's skeleton
 * comparison would, at the cost of shipping and updating its confusables table — the name's
 * ID, printed beside it everywhere, tells such names apart.
 */

/** The recommended scripts of UTS #31 (Table 5), by their Unicode property value names. */
const RECOMMENDED_SCRIPTS = [
  "Latin",
  "Cyrillic",
  "Greek",
  "Han",
  "Hiragana",
  "Katakana",
  "Bopomofo",
  "Hangul",
  "Arabic",
  "Armenian",
  "Bengali",
  "Devanagari",
  "Ethiopic",
  "Georgian",
  "Gujarati",
  "Gurmukhi",
  "Hebrew",
  "Kannada",
  "Khmer",
  "Lao",
  "Malayalam",
  "Myanmar",
  "Oriya",
  "Sinhala",
  "Tamil",
  "Telugu",
  "Thaana",
  "Thai",
  "Tibetan",
] as const;

/** What a letter outside {@link RECOMMENDED_SCRIPTS} is called in a message. */
const LIMITED_USE = "a limited-use script";

const PATTERNS: readonly (readonly [string, RegExp])[] = RECOMMENDED_SCRIPTS.map(
  (script) => [script, new RegExp(`\\p{Script=${script}}`, "u")] as const,
);

const ANY_SCRIPT = /[\p{Script=Common}\p{Script=Inherited}]/u;

/** Scripts whose letters include Latin look-alikes: never combined with Latin. */
const LOOK_LIKE_LATIN: readonly string[] = ["Cyrillic", "Greek"];

/** The combinations UTS #39 allows beyond one script, each with all its subsets. */
const ALLOWED_WITH_HAN: readonly (readonly string[])[] = [
  ["Latin", "Han", "Hiragana", "Katakana"],
  ["Latin", "Han", "Bopomofo"],
  ["Latin", "Han", "Hangul"],
];

/** The script of one code point; undefined for Common and Inherited characters. */
export function scriptOf(point: string): string | undefined {
  if (ANY_SCRIPT.test(point)) return undefined;
  return PATTERNS.find(([, pattern]) => pattern.test(point))?.[0] ?? LIMITED_USE;
}

/** Whether a name using exactly `scripts` passes the rule (see the module comment). */
export function scriptsAllowed(scripts: ReadonlySet<string>): boolean {
  if (scripts.size <= 1) return true;
  const list = [...scripts];
  if (ALLOWED_WITH_HAN.some((set) => list.every((s) => set.includes(s)))) return true;
  if (scripts.size !== 2 || !scripts.has("Latin")) return false;
  const other = list.find((s) => s !== "Latin") ?? LIMITED_USE;
  return other !== LIMITED_USE && !LOOK_LIKE_LATIN.includes(other);
}

/** Where a name first mixes scripts it may not: the scripts (in order met) and the character. */
export interface MixedScripts {
  readonly scripts: readonly [string, string];
  /** Index in code points of the first character that made the mix refused. */
  readonly index: number;
  readonly point: string;
}

/** The first place `points` breaks the rule, or undefined when the name passes. */
export function findMixedScripts(points: readonly string[]): MixedScripts | undefined {
  const seen = new Set<string>();
  let first: string | undefined;
  for (const [index, point] of points.entries()) {
    const script = scriptOf(point);
    if (script === undefined || seen.has(script)) continue;
    seen.add(script);
    first ??= script;
    if (!scriptsAllowed(seen)) return { scripts: [first, script], index, point };
  }
  return undefined;
}
