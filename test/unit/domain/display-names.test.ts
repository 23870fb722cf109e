import { describe, expect, it } from "vitest";
import {
  checkDisplayName,
  displayNameMessage,
  type DisplayNameRule,
} from "../../../src/domain/input/display-names.js";

describe("checkDisplayName: the display-name character policy", () => {
  it.each([
    ["plain ASCII", "support-bot"],
    ["interior spaces", "Support Bot 2"],
    ["NFC accents", "café"],
    ["CJK", "客服机器人"],
    ["emoji (a surrogate pair)", "bot 😀"],
    ["Arabic letters (right-to-left text without controls)", "مساعد"],
    ["empty (length is the schema's)", ""],
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
      "name must not contain bidirectional control characters (U+202E at position 4).",
    ],
    [{ rule: "not_nfc" } as const, "name must be in Unicode Normalization Form C (NFC)."],
    [
      { rule: "unpaired_surrogate", index: 2 } as const,
      "name must be well-formed Unicode (no unpaired surrogate) (at position 2).",
    ],
  ])("names the rule in its message (%#)", (violation, message) => {
    expect(displayNameMessage("name", violation)).toBe(message);
  });
});
