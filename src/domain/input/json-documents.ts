/**
 * What a JSON request body may hold, decided on the raw text and on the parsed value, before
 * anything reads it further (control-plane.md §2, "Request bodies"):
 *
 * - nesting at most {@link MAX_BODY_DEPTH} levels — checked on the text, before `JSON.parse`,
 *   so no later walk (validation, serialization) can run out of stack;
 * - every number round-trips: the value JavaScript stores, written back, is the number sent
 *   (`1e400` would become `null`, `-0` would become `0`, `12345678901234567890` would lose
 *   digits) — refused, never changed;
 * - no string or key holds NUL or an unpaired surrogate (neither can be stored faithfully);
 * - no object holds a key twice (`JSON.parse` keeps the last and drops the other silently;
 *   a body is stored exactly as sent, so it is refused instead): {@link findDuplicateKey};
 * - no `__proto__` key, no `constructor.prototype` (prototype poisoning).
 *
 * Free-form documents (a Configuration's `values`) have tighter, documented limits:
 * {@link DOCUMENT_LIMITS}.
 */
import { err, ok, type Result } from "./result.js";

/** The deepest nesting any JSON body may have (objects and arrays, the outermost is 1). */
export const MAX_BODY_DEPTH = 64;

/** Limits of a free-form document such as a Configuration's `values`. */
export const DOCUMENT_LIMITS = {
  /** Nesting levels; the document object itself is level 1. */
  depth: 32,
  /** Object members, counted over every level. */
  keys: 1000,
  /** The document's size as compact JSON, in UTF-8 bytes. */
  bytes: 32 * 1024,
} as const;

/** What the raw text says: the deepest nesting seen, and every number token. */
export interface JsonScan {
  readonly depth: number;
  readonly numbers: readonly string[];
}

/**
 * Scans JSON text without parsing it: depth and number tokens. Stops as soon as the depth
 * passes `maxDepth` (the returned depth is then `maxDepth + 1`). Text that is not JSON scans
 * to something meaningless; the parser refuses it afterwards.
 */
export function scanJson(text: string, maxDepth = MAX_BODY_DEPTH): JsonScan {
  let depth = 0;
  let deepest = 0;
  const numbers: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, honouring escapes.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c) i++;
      }
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (depth > maxDepth) return { depth: deepest, numbers };
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && /[0-9eE+.-]/.test(text[end] ?? "")) end++;
      numbers.push(text.slice(i, end));
      i = end - 1;
    }
  }
  return { depth: deepest, numbers };
}

/** A decimal number's value as `digits` × 10^`exponent`, without redundant zeros. */
function canonicalDecimal(token: string): string | undefined {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (m === null) return undefined;
  const [, sign = "", int = "", frac = "", exp = "0"] = m;
  let digits = `${int}${frac}`.replace(/^0+/, "");
  if (digits === "") return "0";
  let exponent = Number(exp) - frac.length;
  const trailing = /0+$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return `${sign}${digits}e${exponent}`;
}

/**
 * True when the number `token` (JSON number syntax) survives a round trip through a double:
 * finite, not negative zero, and the shortest decimal of the parsed double has the same value
 * as the text (`1.0` and `1e2` pass; `1e400`, `-0`, `1e-400` and 20-digit integers do not).
 */
export function numberRoundTrips(token: string): boolean {
  const value = Number(token);
  if (!Number.isFinite(value) || Object.is(value, -0)) return false;
  const sent = canonicalDecimal(token);
  return sent !== undefined && sent === canonicalDecimal(String(value));
}

/** Why a parsed body is refused, and where (a JSON pointer relative to the body). */
export interface JsonValueProblem {
  readonly problem: "nul_character" | "unpaired_surrogate" | "prototype_key";
  readonly path: string;
}

// eslint-disable-next-line no-control-regex -- NUL is the point
const NUL = /\u0000/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function stringProblem(value: string): JsonValueProblem["problem"] | undefined {
  if (NUL.test(value)) return "nul_character";
  if (LONE_SURROGATE.test(value)) return "unpaired_surrogate";
  return undefined;
}

/** Where a key appears a second time in one object: the pointer to it, and the key. */
export interface DuplicateKey {
  readonly path: string;
  readonly key: string;
}

/** One open object or array while {@link findDuplicateKey} walks the text. */
interface Frame {
  /** The keys seen so far (an object), or null (an array). */
  readonly keys: Set<string> | null;
  /** The member key or array index the walk is in. */
  at: string;
  index: number;
}

/**
 * The first key that appears twice in the same object of `text` — which must be valid JSON
 * (call it after `JSON.parse` succeeded) — with its JSON pointer; undefined when there is
 * none. Keys are compared decoded: `"a"` and `"\u0061"` are the same key.
 */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x22) {
      const start = i;
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c) i++;
      }
      if (top?.keys === null || top === undefined) continue;
      let next = i + 1;
      while (/\s/.test(text[next] ?? "")) next++;
      if (text[next] !== ":") continue;
      const key = JSON.parse(text.slice(start, i + 1)) as string;
      if (top.keys.has(key)) {
        const path = [...stack.slice(0, -1).map((f) => f.at), key].map(segment).join("/");
        return { path: `/${path}`, key };
      }
      top.keys.add(key);
      top.at = key;
    } else if (c === 0x7b) {
      stack.push({ keys: new Set(), at: "", index: 0 });
    } else if (c === 0x5b) {
      stack.push({ keys: null, at: "0", index: 0 });
    } else if (c === 0x2c && top?.keys === null) {
      top.index++;
      top.at = String(top.index);
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    }
  }
  return undefined;
}

/** A JSON pointer segment (RFC 6901). */
function segment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Finds the first string or key holding NUL or an unpaired surrogate, or a prototype key,
 * in a parsed body (whose depth is already bounded by {@link scanJson}).
 */
export function findValueProblem(value: unknown, path = ""): JsonValueProblem | undefined {
  if (typeof value === "string") {
    const problem = stringProblem(value);
    return problem === undefined ? undefined : { problem, path };
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findValueProblem(item, `${path}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = stringProblem(key);
    // The pointer stops at the object: a key that breaks a rule is not echoed.
    if (keyProblem !== undefined) return { problem: keyProblem, path };
    if (
      key === "__proto__" ||
      (key === "constructor" && typeof item === "object" && item !== null && "prototype" in item)
    ) {
      return { problem: "prototype_key", path };
    }
    const found = findValueProblem(item, `${path}/${segment(key)}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Which document limit a value exceeds, with the measured amount. */
export interface DocumentLimitExceeded {
  readonly limit: keyof typeof DOCUMENT_LIMITS;
  readonly actual: number;
}

function measure(value: unknown, level: number, acc: { depth: number; keys: number }): void {
  if (typeof value !== "object" || value === null) return;
  if (level > acc.depth) acc.depth = level;
  if (Array.isArray(value)) {
    for (const item of value) measure(item, level + 1, acc);
    return;
  }
  for (const item of Object.values(value)) {
    acc.keys++;
    measure(item, level + 1, acc);
  }
}

/**
 * Checks a free-form document against {@link DOCUMENT_LIMITS} and returns its compact JSON
 * text — the exact text that is stored and, parsed back, returned.
 */
export function serializeDocument(value: unknown): Result<string, DocumentLimitExceeded> {
  const acc = { depth: 0, keys: 0 };
  measure(value, 1, acc);
  if (acc.depth > DOCUMENT_LIMITS.depth) return err({ limit: "depth", actual: acc.depth });
  if (acc.keys > DOCUMENT_LIMITS.keys) return err({ limit: "keys", actual: acc.keys });
  const text = JSON.stringify(value);
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > DOCUMENT_LIMITS.bytes) return err({ limit: "bytes", actual: bytes });
  return ok(text);
}
