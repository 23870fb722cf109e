/** Table-driven tests of the API's pure helpers: messages, cursors, plain text, detail codes. */
import { ValueErrorType } from "@sinclair/typebox/errors";
import { describe, expect, it } from "vitest";
import { clipMessage } from "../../../src/services/errors.js";
import { ERROR_CODES, MAX_MESSAGE_LENGTH } from "../../../src/contract/errors.js";
import { ERROR_STATUS } from "../../../src/api/errors.js";
import { notEmptyMessage } from "../../../src/services/namespaces/contents.js";
import { decodeCursor, encodeCursor } from "../../../src/services/cursor.js";
import { codePointLength, isPlainText } from "../../../src/contract/formats.js";
import { detailCodeOf } from "../../../src/api/validation.js";
import { isPreprovisionedNamespaceId } from "../../../src/domain/placement/ids.js";

describe("the error table", () => {
  it("maps every code to one of the spec's statuses", () => {
    expect(ERROR_CODES).toHaveLength(21);
    for (const code of ERROR_CODES) {
      expect([400, 401, 403, 404, 405, 408, 409, 413, 415, 417, 429, 431, 500, 503]).toContain(
        ERROR_STATUS[code],
      );
    }
  });

  it.each([
    ["short", "short"],
    ["x".repeat(256), "x".repeat(256)],
    ["x".repeat(300), `${"x".repeat(255)}…`],
    ["😀".repeat(300), `${"😀".repeat(255)}…`],
  ])("clips messages to 256 characters (%#)", (input, expected) => {
    expect(clipMessage(input)).toBe(expected);
    expect(Array.from(clipMessage(input)).length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
  });
});

describe("notEmptyMessage", () => {
  const kind = (singular: string, count: number) => ({ singular, plural: `${singular}s`, count });
  it.each([
    [[kind("Agent", 1)], "The Namespace still holds 1 Agent; delete them first."],
    [
      [kind("Agent", 2), kind("Secret", 1)],
      "The Namespace still holds 2 Agents and 1 Secret; delete them first.",
    ],
    [
      [kind("Agent", 2), kind("Configuration", 3), kind("Secret", 1)],
      "The Namespace still holds 2 Agents, 3 Configurations and 1 Secret; delete them first.",
    ],
  ])("names every kind (%#)", (remaining, message) => {
    expect(notEmptyMessage(remaining)).toBe(message);
  });

  it("stays within 256 characters", () => {
    const many = Array.from({ length: 40 }, (_, i) => kind(`Kind${i}`, 1000 + i));
    expect(notEmptyMessage(many).length).toBeLessThanOrEqual(256);
  });
});

describe("cursors", () => {
  it("round-trip a position", () => {
    const at = new Date("2026-11-29T12:00:00.123Z");
    const cursor = encodeCursor(at, "ns_abc");
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, isPreprovisionedNamespaceId)).toEqual({ time: at, id: "ns_abc" });
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
