/**
 * Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource`), parsed to exact
 * rationals so that values compare the way the API server sees them: `1Gi` equals
 * `1073741824`, `1000m` equals `1`, `1e3` equals `1k`.
 *
 * Grammar (as the Go parser accepts it):
 *   quantity  ::= [+-] number [suffix]
 *   number    ::= digits | digits "." [digits] | "." digits
 *   suffix    ::= Ki|Mi|Gi|Ti|Pi|Ei  (binary SI)
 *               | n|u|m|k|M|G|T|P|E  (decimal SI; "" is 1)
 *               | (e|E) [+-] digits  (decimal exponent)
 * `1E` is exa; `1E3` is an exponent. The Go type additionally rounds below nano precision;
 * that does not matter for the request-vs-limit and equality checks made here.
 */

/** An exact value `numerator / denominator`, denominator > 0 (not necessarily reduced). */
export interface Quantity {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** Largest decimal exponent accepted; beyond it no real resource amount exists. */
const MAX_EXPONENT = 1000;

const QUANTITY =
  /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

const BINARY_POWER: Readonly<Record<string, bigint>> = {
  Ki: 10n,
  Mi: 20n,
  Gi: 30n,
  Ti: 40n,
  Pi: 50n,
  Ei: 60n,
};

const DECIMAL_EXPONENT: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/** Parses a quantity string; `null` when it is not a Kubernetes quantity. */
export function parseQuantity(text: string): Quantity | null {
  const match = QUANTITY.exec(text);
  if (match === null) return null;
  const [, sign = "", number = "", exponentText, suffix = ""] = match;
  const [whole = "", fraction = ""] = number.split(".");
  let numerator = BigInt((whole === "" ? "0" : whole) + fraction);
  let denominator = 10n ** BigInt(fraction.length);

  const binary = BINARY_POWER[suffix];
  let exponent = DECIMAL_EXPONENT[suffix] ?? 0;
  if (exponentText !== undefined) exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > MAX_EXPONENT) return null;

  if (binary !== undefined) numerator *= 2n ** binary;
  if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
  else denominator *= 10n ** BigInt(-exponent);
  if (sign === "-") numerator = -numerator;
  return { numerator, denominator };
}

/** True when `text` is a valid quantity. */
export function isQuantity(text: string): boolean {
  return parseQuantity(text) !== null;
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  if (left === right) return 0;
  return left < right ? -1 : 1;
}

/**
 * Semantic equality of two quantity strings: equal values are equal however they are
 * written. Strings that do not parse are equal only when identical, so an invalid observed
 * value is never mistaken for a valid desired one.
 */
export function quantityStringsEqual(a: string, b: string): boolean {
  const left = parseQuantity(a);
  const right = parseQuantity(b);
  if (left === null || right === null) return a === b;
  return compareQuantities(left, right) === 0;
}

/** True when the quantity is below zero. */
export function isNegative(quantity: Quantity): boolean {
  return quantity.numerator < 0n;
}
