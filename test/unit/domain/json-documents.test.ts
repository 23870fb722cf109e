import { describe, expect, it } from "vitest";
import {
  DOCUMENT_LIMITS,
  findDuplicateKey,
  findValueProblem,
  MAX_BODY_DEPTH,
  numberRoundTrips,
  scanJson,
  serializeDocument,
} from "../../../src/domain/input/json-documents.js";

describe("numberRoundTrips", () => {
  it.each([
    ["0", true],
    ["1", true],
    ["1.0", true],
    ["1e2", true],
    ["1E+2", true],
    ["-1.5e-7", true],
    ["0.1", true],
    ["0.30000000000000004", true],
    ["9007199254740991", true],
    ["1e21", true],
    ["1.7976931348623157e308", true],
    ["5e-324", true],
    ["1e400", false],
    ["-1e400", false],
    ["-0", false],
    ["-0.0", false],
    ["-0e5", false],
    ["1e-400", false],
    ["9007199254740993", false],
    ["12345678901234567890", false],
    ["0.1000000000000000000001", false],
  ])("%s → %s", (token, expected) => {
    expect(numberRoundTrips(token)).toBe(expected);
  });
});

describe("scanJson", () => {
  it.each([
    ['{"a":[1,{"b":2}]}', 3, ["1", "2"]],
    ['{"a":"[[[{{{-1"}', 1, []],
    ['["\\"[",-2.5e3]', 1, ["-2.5e3"]],
    ["7", 0, ["7"]],
  ])("%s: depth %i, numbers %j", (text, depth, numbers) => {
    expect(scanJson(text)).toEqual({ depth, numbers });
  });

  it("stops as soon as the depth passes the limit", () => {
    const text = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(scanJson(text).depth).toBe(MAX_BODY_DEPTH + 1);
  });
});

describe("findValueProblem", () => {
  it.each([
    [{ a: "ok", b: [1, "x"] }, undefined],
    [{ a: "x\u0000" }, { problem: "nul_character", path: "/a" }],
    [{ a: ["ok", "\uD800"] }, { problem: "unpaired_surrogate", path: "/a/1" }],
    [{ "a/b~": { c: "\uDC00x" } }, { problem: "unpaired_surrogate", path: "/a~1b~0/c" }],
    [{ a: { "k\u0000": 1 } }, { problem: "nul_character", path: "/a" }],
    [JSON.parse('{"a":{"__proto__":{}}}') as unknown, { problem: "prototype_key", path: "/a" }],
    [{ constructor: { prototype: {} } }, { problem: "prototype_key", path: "" }],
    [{ constructor: "fine" }, undefined],
    ["😀", undefined],
  ])("%j → %j", (value, expected) => {
    expect(findValueProblem(value)).toEqual(expected);
  });
});

describe("findDuplicateKey", () => {
  it.each([
    ['{"a":1,"b":2}', undefined],
    ['{"a":1,"a":2}', { path: "/a", key: "a" }],
    ['{"a":1,"\\u0061":2}', { path: "/a", key: "a" }],
    ['{"values":{"x":{"k":1},"y":[{"k":1},{"k":1,"k":2}]}}', { path: "/values/y/1/k", key: "k" }],
    ['{"a":{"b":1},"c":{"b":1}}', undefined],
    ['[{"a":1},{"a":1}]', undefined],
    ['{"s":"\\"a\\":1,","a":1}', undefined],
    ['{"a/b~":1, "a/b~" :2}', { path: "/a~1b~0", key: "a/b~" }],
    ['{ "x" : [ 1 , { "y" : "z" , "y" : "w" } ] }', { path: "/x/1/y", key: "y" }],
    ['{"":1,"":2}', { path: "/", key: "" }],
    ['"a"', undefined],
  ])("%s → %j", (text, expected) => {
    JSON.parse(text); // the function's precondition: valid JSON
    expect(findDuplicateKey(text)).toEqual(expected);
  });
});

function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

describe("serializeDocument: the free-form document limits", () => {
  it("returns compact JSON within the limits", () => {
    expect(serializeDocument({ a: [1, { b: "c" }] })).toEqual({
      ok: true,
      value: '{"a":[1,{"b":"c"}]}',
    });
  });

  it.each([
    ["depth at the limit", { k: nested(DOCUMENT_LIMITS.depth - 1) }, undefined],
    ["depth over the limit", { k: nested(DOCUMENT_LIMITS.depth) }, { limit: "depth", actual: 33 }],
    [
      "keys at the limit",
      Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])),
      undefined,
    ],
    [
      "keys over the limit, counted at every level",
      { a: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])) },
      { limit: "keys", actual: 1001 },
    ],
    ["size at the limit", { k: "x".repeat(DOCUMENT_LIMITS.bytes - 8) }, undefined],
    [
      "size over the limit (UTF-8 bytes, not characters)",
      { k: "é".repeat(DOCUMENT_LIMITS.bytes / 2) },
      { limit: "bytes", actual: DOCUMENT_LIMITS.bytes + 8 },
    ],
  ])("%s", (_label, value, exceeded) => {
    const result = serializeDocument(value);
    if (exceeded === undefined) expect(result.ok).toBe(true);
    else expect(result).toEqual({ ok: false, error: exceeded });
  });
});
