import { describe, expect, it } from "vitest";
import {
  PREPROVISIONED_NAMESPACE_ID_PATTERN,
  SERVER_NAMESPACE_ID_PATTERN,
  isPreprovisionedNamespaceId,
  isServerNamespaceId,
  newNamespaceId,
  parsePreprovisionedNamespaceId,
  parseServerNamespaceId,
} from "../../../src/domain/index.js";

/** Each `[value, expected]`: the guard and the exported pattern both answer `expected`. */
function guardAndPatternAgree(
  guard: (value: unknown) => boolean,
  pattern: RegExp,
  rows: [string, boolean][],
): void {
  it.each(rows)("%j → %s", (value, expected) => {
    expect(guard(value)).toBe(expected);
    expect(pattern.test(value)).toBe(expected);
  });
}

describe("newNamespaceId", () => {
  it("generates ns_ + a lowercase UUIDv4, different every time", () => {
    const ids = Array.from({ length: 50 }, () => newNamespaceId());
    for (const id of ids) {
      expect(id).toMatch(
        /^ns_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(isServerNamespaceId(id)).toBe(true);
    }
    expect(new Set(ids).size).toBe(50);
  });
});

describe("isServerNamespaceId", () => {
  guardAndPatternAgree(isServerNamespaceId, SERVER_NAMESPACE_ID_PATTERN, [
    ["ns_00000000-0000-4000-8000-000000000001", true],
    ["ns_0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60", true],
    ["ns_0f4c2a9e-6b1d-4c3e-bfff-2d5e8b1c4a60", true],
    ["ns_0F4C2A9E-6B1D-4C3E-9A7F-2D5E8B1C4A60", false], // uppercase
    ["ns_0f4c2a9e-6b1d-3c3e-9a7f-2d5e8b1c4a60", false], // version 3
    ["ns_0f4c2a9e-6b1d-4c3e-7a7f-2d5e8b1c4a60", false], // variant 7
    ["ns_0f4c2a9e6b1d4c3e9a7f2d5e8b1c4a60", false], // no hyphens
    ["0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60", false], // no prefix
    ["ns_0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60 ", false], // trailing space
    ["ns_0f4c2a9e-6b1d-4c3e-9a7f-2d5e8b1c4a60\n", false], // trailing newline
    ["ns_example", false],
    ["", false],
  ]);

  it("rejects non-strings", () => {
    expect(isServerNamespaceId(42)).toBe(false);
    expect(isServerNamespaceId(null)).toBe(false);
    expect(isServerNamespaceId(undefined)).toBe(false);
  });
});

describe("isPreprovisionedNamespaceId", () => {
  guardAndPatternAgree(isPreprovisionedNamespaceId, PREPROVISIONED_NAMESPACE_ID_PATTERN, [
    ["ns_example", true],
    ["ns_a", true],
    ["ns_A-b_C", true],
    [`ns_${"x".repeat(60)}`, true],
    [`ns_${"x".repeat(61)}`, false],
    ["ns_", false],
    ["ns_a.b", false],
    ["ns_a/b", false],
    ["NS_example", false],
    ["ns_exämple", false],
    ["ns_00000000-0000-4000-8000-000000000001", true],
  ]);
});

describe("parse helpers", () => {
  it("returns the branded value on success", () => {
    expect(parseServerNamespaceId("ns_00000000-0000-4000-8000-000000000001")).toEqual({
      ok: true,
      value: "ns_00000000-0000-4000-8000-000000000001",
    });
    expect(parsePreprovisionedNamespaceId("ns_example")).toEqual({ ok: true, value: "ns_example" });
  });

  it("returns a message that does not echo the input", () => {
    const secret = "ns_someone-else";
    const parsed = parseServerNamespaceId(secret);
    expect(parsed).toEqual({
      ok: false,
      error: "Namespace ID must be ns_ followed by a lowercase UUIDv4",
    });
    expect(parsePreprovisionedNamespaceId("ns_a.b")).toEqual({
      ok: false,
      error: "namespaceId must match ^ns_[a-zA-Z0-9_-]{1,60}$",
    });
  });
});
