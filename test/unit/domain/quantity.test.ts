import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareQuantities,
  isQuantity,
  parseQuantity,
  quantityStringsEqual,
} from "../../../src/domain/index.js";

function value(text: string): { numerator: bigint; denominator: bigint } {
  const parsed = parseQuantity(text);
  if (parsed === null) throw new Error(`not a quantity: ${text}`);
  return parsed;
}

/** The value as a reduced fraction string, e.g. "1/2". */
function exact(text: string): string {
  const { numerator, denominator } = value(text);
  const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
  const divisor = gcd(numerator, denominator);
  return `${numerator / divisor}/${denominator / divisor}`;
}

describe("parseQuantity", () => {
  it.each([
    ["0", "0/1"],
    ["1", "1/1"],
    ["500m", "1/2"],
    ["1000m", "1/1"],
    ["1.5", "3/2"],
    ["1.", "1/1"],
    [".5", "1/2"],
    ["+2", "2/1"],
    ["-2", "-2/1"],
    ["1k", "1000/1"],
    ["1M", "1000000/1"],
    ["1G", "1000000000/1"],
    ["1T", "1000000000000/1"],
    ["1P", "1000000000000000/1"],
    ["1E", "1000000000000000000/1"],
    ["100n", "1/10000000"],
    ["5u", "1/200000"],
    ["1Ki", "1024/1"],
    ["1Mi", "1048576/1"],
    ["1Gi", "1073741824/1"],
    ["1Ti", "1099511627776/1"],
    ["1Pi", "1125899906842624/1"],
    ["1Ei", "1152921504606846976/1"],
    ["1.5Gi", "1610612736/1"],
    ["1e3", "1000/1"],
    ["1E3", "1000/1"],
    ["1e+3", "1000/1"],
    ["25e-2", "1/4"],
    ["128974848", "128974848/1"],
    ["129e6", "129000000/1"],
    ["123Mi", "128974848/1"],
  ])("%s = %s", (text, fraction) => {
    expect(exact(text)).toBe(fraction);
    expect(isQuantity(text)).toBe(true);
  });

  it.each([
    "",
    " 1",
    "1 ",
    ".",
    "1e",
    "1e1.5",
    "1KI",
    "1ki",
    "1K",
    "1Kb",
    "1..0",
    "--1",
    "1mm",
    "Gi",
    "one",
    "1e1001",
    "0x10",
    "1,5",
  ])("rejects %j", (text) => {
    expect(parseQuantity(text)).toBeNull();
    expect(isQuantity(text)).toBe(false);
  });
});

describe("compareQuantities / quantityStringsEqual", () => {
  it.each([
    ["1Gi", "1073741824", 0],
    ["1000m", "1", 0],
    ["1e3", "1k", 0],
    ["0.5", "500m", 0],
    ["1024Mi", "1Gi", 0],
    ["1G", "1Gi", -1],
    ["2", "1999m", 1],
    ["-1", "0", -1],
    ["100m", "0.1", 0],
  ] as const)("%s vs %s → %i", (a, b, expected) => {
    expect(compareQuantities(value(a), value(b))).toBe(expected);
    expect(quantityStringsEqual(a, b)).toBe(expected === 0);
  });

  it("unparsable strings are equal only when identical", () => {
    expect(quantityStringsEqual("abc", "abc")).toBe(true);
    expect(quantityStringsEqual("abc", "1")).toBe(false);
    expect(quantityStringsEqual("1", "abc")).toBe(false);
  });

  it("property: an integer equals its milli form and its exponent form", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), (n) => {
        expect(quantityStringsEqual(`${n}`, `${n * 1000n}m`)).toBe(true);
        expect(quantityStringsEqual(`${n}`, `${n}e0`)).toBe(true);
        expect(quantityStringsEqual(`${n}Ki`, `${n * 1024n}`)).toBe(true);
        expect(compareQuantities(value(`${n}`), value(`${n + 1n}`))).toBe(-1);
      }),
    );
  });
});
