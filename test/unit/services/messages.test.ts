/**
 * Table-driven tests of the services' pure helpers (moved from test/unit/api): clipped error
 * messages, the not-empty message of a Namespace delete, list cursors.
 */
import { describe, expect, it } from "vitest";
import { clipMessage } from "../../../src/services/errors.js";
import { MAX_MESSAGE_LENGTH } from "../../../src/contract/errors.js";
import { notEmptyMessage } from "../../../src/services/namespaces/contents.js";
import { decodeCursor, encodeCursor } from "../../../src/services/cursor.js";
import { isPreprovisionedNamespaceId } from "../../../src/domain/placement/ids.js";

describe("error messages", () => {
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
