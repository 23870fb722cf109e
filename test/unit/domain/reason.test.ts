import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_REASON_LENGTH,
  REDACTION_MARKER,
  redact,
  sanitizeReason,
} from "../../../src/domain/index.js";

describe("sanitizeReason", () => {
  it.each([
    ["plain", "plain"],
    ["  padded  ", "padded"],
    ["a\nb\r\nc\td", "a b c d"],
    ["bell\u0007 and nul\u0000", "bell and nul"],
    ["del\u007f c1\u0085x", "del c1 x"],
    ["bidi \u202eevil\u202c", "bidi evil"],
    ["sep\u2028x", "sep x"],
  ])("%j → %j", (input, expected) => {
    expect(sanitizeReason(input)).toBe(expected);
  });

  it("cuts to 256 characters with an ellipsis", () => {
    const result = sanitizeReason("a".repeat(1000));
    expect(result).toHaveLength(MAX_REASON_LENGTH);
    expect(result.endsWith("…")).toBe(true);
    expect(sanitizeReason("a".repeat(256))).toBe("a".repeat(256));
  });

  it("does not split a surrogate pair when cutting", () => {
    const result = sanitizeReason("a".repeat(254) + "😀".repeat(10));
    expect(result).toBe(`${"a".repeat(254)}…`);
  });

  it("redacts forbidden strings, also when hidden by control characters", () => {
    expect(sanitizeReason("claimed by ns_other", ["ns_other"])).toBe(
      `claimed by ${REDACTION_MARKER}`,
    );
    expect(sanitizeReason("claimed by ns_ot\u0000her", ["ns_other"])).toBe(
      `claimed by ${REDACTION_MARKER}`,
    );
  });

  it("drops the ellipsis when it would complete a forbidden string", () => {
    const result = sanitizeReason(`${"a".repeat(254)}xyz`, ["a…"]);
    expect(result.includes("a…")).toBe(false);
    expect(result).toHaveLength(256);
  });
});

describe("redact", () => {
  it.each([
    ["abc abc", ["abc"], "[redacted] [redacted]"],
    ["aabb", ["ab"], "a[redacted]b"],
    ["aabb", ["ab", "d]"], ""], // deleting "ab" joins a new "ab", which is deleted too
    ["nothing", ["zzz"], "nothing"],
    ["ignore empty", [""], "ignore empty"],
    ["d]x", ["d]"], "x"], // the needle occurs in the marker: delete instead
  ])("%j without %j → %j", (text, needles, expected) => {
    expect(redact(text, needles)).toBe(expected);
  });
});

describe("redact termination", () => {
  it("ends even when two forbidden strings keep re-creating each other across the marker", () => {
    // "]r" → "[redacted]" leaves "[redacted]r" (a new "]r"), whose replacement makes "d[" …
    const result = redact("]rr", ["]r", "d["]);
    expect(result.includes("]r")).toBe(false);
    expect(result.includes("d[")).toBe(false);
    expect(result.length).toBeLessThan(200);
  });
});

describe("property: a sanitized reason never contains a forbidden string", () => {
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: "binary" }),
    fc.string({ unit: "grapheme" }),
  );

  it("for arbitrary text with the foreign ID spliced in", () => {
    fc.assert(
      fc.property(
        fc.array(text, { maxLength: 6 }),
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 40 }),
          fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
          fc.uuid().map((uuid) => `ns_${uuid}`),
        ),
        (parts, foreignId) => {
          const reason = sanitizeReason(parts.join(foreignId), [foreignId]);
          expect(reason.length).toBeLessThanOrEqual(MAX_REASON_LENGTH);
          expect(reason.includes(foreignId)).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a foreign ID containing control characters is caught in its cleaned form too", () => {
    expect(sanitizeReason("see ns_a\u0000b here", ["ns_a\u0000b"])).toBe("see [redacted] here");
  });

  it("for several forbidden strings at once, including tiny ones", () => {
    fc.assert(
      fc.property(
        text,
        fc.array(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
        (body, forbidden) => {
          const reason = sanitizeReason(body + forbidden.join("") + body, forbidden);
          expect(reason.length).toBeLessThanOrEqual(MAX_REASON_LENGTH);
          for (const needle of forbidden) expect(reason.includes(needle)).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
