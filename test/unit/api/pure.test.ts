/** Table-driven tests of the API's pure helpers: the error table, plain text, detail codes. */
import { ValueErrorType } from "@sinclair/typebox/errors";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../../src/contract/errors.js";
import { ERROR_STATUS } from "../../../src/api/errors.js";
import { codePointLength, isPlainText } from "../../../src/contract/formats.js";
import { detailCodeOf } from "../../../src/api/validation.js";

describe("the error table", () => {
  it("maps every code to one of the spec's statuses", () => {
    expect(ERROR_CODES).toHaveLength(21);
    for (const code of ERROR_CODES) {
      expect([400, 401, 403, 404, 405, 408, 409, 413, 415, 417, 429, 431, 500, 503]).toContain(
        ERROR_STATUS[code],
      );
    }
  });
});

describe("plain text", () => {
  it.each([
    ["support team", true],
    ["équipe 😀 支援", true],
    ["tab\there", false],
    ["new\nline", false],
    ["nul\u0000", false],
    ["c1\u0085", false],
    ["sep\u2028", false],
    ["lone\ud800", false],
    ["lone\udc00x", false],
  ])("%j is plain text: %s", (value, ok) => {
    expect(isPlainText(value)).toBe(ok);
  });

  it("counts code points as PostgreSQL does", () => {
    expect(codePointLength("😀😀")).toBe(2);
  });
});

describe("detail codes", () => {
  it.each([
    [ValueErrorType.ObjectRequiredProperty, "required"],
    [ValueErrorType.ObjectAdditionalProperties, "unknown_field"],
    [ValueErrorType.StringPattern, "invalid_format"],
    [ValueErrorType.StringMaxLength, "too_long"],
    [ValueErrorType.IntegerMinimum, "out_of_range"],
    [ValueErrorType.Union, "invalid_value"],
    [ValueErrorType.String, "invalid_type"],
  ])("type %i → %s", (type, code) => {
    expect(detailCodeOf({ type })).toBe(code);
  });
});
