import { describe, expect, it } from "vitest";
import {
  checkDescription,
  checkDisplayName,
  displayNameMessage,
  type DisplayNameRule,
} from "../../../src/domain/input/display-names.js";
import { scriptOf, scriptsAllowed } from "../../../src/domain/input/scripts.js";

describe("checkDisplayName: the display-name character policy", () => {
  it.each([
    ["plain ASCII", "support-bot"],
    ["interior spaces", "Support Bot 2"],
    ["NFC accents", "café"],
    ["CJK", "客服机器人"],
    ["emoji (a surrogate pair)", "bot 😀"],
    ["Arabic letters (right-to-left text without controls)", "مساعد"],
    ["empty (length is the schema's)", ""],
    ["all Cyrillic", "поддержка"],
    ["all Greek", "Ωμέγα"],
    ["Latin with Arabic", "Support مساعد"],
    ["Latin with Devanagari", "Team हिंदी"],
    ["Latin with Han and kana (Japanese)", "Tokyo 東京 サポート ひらがな"],
    ["Latin with Han and Hangul", "Seoul 서울 首尔"],
    ["digits, punctuation and symbols with any one script", "команда-2 (№1) ★ · 50%"],
    ["a combining mark in NFC-less position but composed", "Zoë"],
    ["Cherokee alone", "ᏣᎳᎩ"],
  ])("accepts %s", (_label, name) => {
    expect(checkDisplayName(name)).toEqual({ ok: true, value: name });
  });

  it.each<[string, string, DisplayNameRule, string | undefined, number | undefined]>([
    ["a lone high surrogate", "ab\uD800", "unpaired_surrogate", undefined, 2],
    ["a lone low surrogate", "\uDC00", "unpaired_surrogate", undefined, 0],
    ["NUL", "a\u0000", "control_character", "U+0000", 1],
    ["a newline", "a\nb", "control_character", "U+000A", 1],
    ["DEL", "a\u007f", "control_character", "U+007F", 1],
    ["a C1 control", "a\u0085", "control_character", "U+0085", 1],
    ["a line separator", "a\u2028", "control_character", "U+2028", 1],
    ["RIGHT-TO-LEFT OVERRIDE", "evil\u202Etxt", "bidi_control", "U+202E", 4],
    ["RIGHT-TO-LEFT ISOLATE", "a\u2067b", "bidi_control", "U+2067", 1],
    ["LEFT-TO-RIGHT MARK", "\u200Ea", "bidi_control", "U+200E", 0],
    ["ARABIC LETTER MARK", "a\u061C", "bidi_control", "U+061C", 1],
    ["ZERO WIDTH SPACE", "ad\u200Bmin", "format_character", "U+200B", 2],
    ["ZERO WIDTH JOINER", "a\u200Db", "format_character", "U+200D", 1],
    ["a BOM", "\uFEFFadmin", "format_character", "U+FEFF", 0],
    ["a soft hyphen", "ad\u00ADmin", "format_character", "U+00AD", 2],
    ["a tag character (astral Cf)", "a\u{E0041}", "format_character", "U+E0041", 1],
    ["a lone space", " ", "edge_whitespace", "U+0020", 0],
    ["a leading space", " admin", "edge_whitespace", "U+0020", 0],
    ["a trailing no-break space", "admin\u00A0", "edge_whitespace", "U+00A0", 5],
    ["a trailing ideographic space", "admin\u3000", "edge_whitespace", "U+3000", 5],
    ["a trailing HANGUL FILLER", "admin\u3164", "invisible_character", "U+3164", 5],
    ["a trailing BRAILLE PATTERN BLANK", "admin\u2800", "invisible_character", "U+2800", 5],
    ["HANGUL CHOSEONG FILLER", "\u115Fadmin", "invisible_character", "U+115F", 0],
    ["HANGUL JUNGSEONG FILLER", "ad\u1160min", "invisible_character", "U+1160", 2],
    ["HALFWIDTH HANGUL FILLER", "admin\uFFA0", "invisible_character", "U+FFA0", 5],
    ["COMBINING GRAPHEME JOINER", "a\u034Fb", "invisible_character", "U+034F", 1],
    [
      "VARIATION SELECTOR-16 (emoji presentation)",
      "team \u2764\uFE0F",
      "invisible_character",
      "U+FE0F",
      6,
    ],
    ["a Mongolian free variation selector", "a\u180Bb", "invisible_character", "U+180B", 1],
    ["KHMER VOWEL INHERENT AQ", "a\u17B4b", "invisible_character", "U+17B4", 1],
    ["an astral variation selector", "a\u{E0100}", "invisible_character", "U+E0100", 1],
    ["a reserved default-ignorable", "a\uFFF0", "invisible_character", "U+FFF0", 1],
    ["a no-break space inside", "support\u00A0team", "other_whitespace", "U+00A0", 7],
    ["an ideographic space inside", "a\u3000b", "other_whitespace", "U+3000", 1],
    ["an em space inside", "a\u2003b", "other_whitespace", "U+2003", 1],
    ["a Cyrillic а in a Latin name", "p\u0430ypal", "mixed_script", "U+0430", 1],
    ["a Greek ο in a Latin name", "g\u03BFogle", "mixed_script", "U+03BF", 1],
    ["Latin after Cyrillic", "\u0440\u0430ypal", "mixed_script", "U+0079", 2],
    ["Cyrillic with Greek", "\u0430\u03B2", "mixed_script", "U+03B2", 1],
    ["a Cherokee letter in a Latin name", "\u13AAdmin", "mixed_script", "U+0064", 1],
    ["Latin with Arabic and Hebrew", "a \u0645 \u05D0", "mixed_script", "U+05D0", 4],
    ["NFD (e + combining acute)", "cafe\u0301", "not_nfc", undefined, undefined],
    ["the Kelvin sign (NFC maps it to K)", "\u212A", "not_nfc", undefined, undefined],
  ])("refuses %s", (_label, name, rule, codePoint, index) => {
    const checked = checkDisplayName(name);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.rule).toBe(rule);
    expect(checked.error.codePoint).toBe(codePoint);
    expect(checked.error.index).toBe(index);
  });

  it.each([
    [
      { rule: "bidi_control", codePoint: "U+202E", index: 4 } as const,
      "name must not contain bidirectional control characters (U+202E at position 4); remove it.",
    ],
    [
      { rule: "not_nfc" } as const,
      "name must be in Unicode Normalization Form C (NFC); normalize it to NFC.",
    ],
    [
      { rule: "unpaired_surrogate", index: 2 } as const,
      "name must be well-formed Unicode (no unpaired surrogate) (at position 2); send well-formed UTF-8.",
    ],
    [
      { rule: "invisible_character", codePoint: "U+3164", index: 5 } as const,
      "name must not contain invisible or blank characters (U+3164 at position 5); remove it (send an emoji without U+FE0F).",
    ],
    [
      { rule: "other_whitespace", codePoint: "U+00A0", index: 7 } as const,
      "name must not contain whitespace other than the plain space (U+00A0 at position 7); use a plain space (U+0020).",
    ],
    [
      {
        rule: "mixed_script",
        codePoint: "U+0430",
        index: 1,
        scripts: ["Latin", "Cyrillic"],
      } as const,
      "name must be written in one script, not Latin and Cyrillic together (their letters can look alike) (U+0430 at position 1); write every letter in the same script.",
    ],
  ])("names the field, the rule, the code point and the fix (%#)", (violation, message) => {
    expect(displayNameMessage("name", violation)).toBe(message);
  });
});

describe("checkDescription: free text under the character rules", () => {
  it.each([
    ["any spacing and scripts", "  Team\u00A0A — команда Ωμέγα, 東京  "],
    ["empty", ""],
    ["NFD", "cafe\u0301"],
  ])("accepts %s", (_label, text) => {
    expect(checkDescription(text)).toEqual({ ok: true, value: text });
  });

  it.each<[string, string, DisplayNameRule, string | undefined]>([
    ["a newline", "a\nb", "control_character", "U+000A"],
    ["a right-to-left override", "x\u202Ey", "bidi_control", "U+202E"],
    ["a zero-width space", "x\u200By", "format_character", "U+200B"],
    ["a Hangul filler", "x\u3164", "invisible_character", "U+3164"],
    ["a blank braille pattern", "\u2800", "invisible_character", "U+2800"],
    ["an unpaired surrogate", "x\uD800", "unpaired_surrogate", undefined],
  ])("refuses %s", (_label, text, rule, codePoint) => {
    const checked = checkDescription(text);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.rule).toBe(rule);
    expect(checked.error.codePoint).toBe(codePoint);
  });
});

describe("the mixed-script rule (UTS #39 moderately restrictive)", () => {
  it.each([
    ["a", "Latin"],
    ["\u0430", "Cyrillic"],
    ["\u03B1", "Greek"],
    ["東", "Han"],
    ["\u13AA", "a limited-use script"],
    ["1", undefined],
    ["-", undefined],
    ["\u0301", undefined],
    ["😀", undefined],
  ])("%s is %s", (point, script) => {
    expect(scriptOf(point)).toBe(script);
  });

  it.each<[string[], boolean]>([
    [[], true],
    [["Cyrillic"], true],
    [["Latin", "Han", "Hiragana", "Katakana"], true],
    [["Latin", "Han", "Bopomofo"], true],
    [["Han", "Hangul"], true],
    [["Latin", "Arabic"], true],
    [["Latin", "Cyrillic"], false],
    [["Latin", "Greek"], false],
    [["Latin", "a limited-use script"], false],
    [["Arabic", "Hebrew"], false],
    [["Latin", "Arabic", "Hebrew"], false],
    [["Latin", "Hangul", "Hiragana"], false],
  ])("%j allowed: %s", (scripts, allowed) => {
    expect(scriptsAllowed(new Set(scripts))).toBe(allowed);
  });
});
