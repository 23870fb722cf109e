/**
 * Readers for single configuration values, shared by the settings validators. Each reader
 * returns the typed value or `undefined` after recording a problem that names the key and the
 * fix; none stops at the first problem, so a validator can report everything at once.
 * Internal to the domain layer (not re-exported by the barrel).
 */
import type { ConfigurationProblem } from "../isolation/compute-settings.js";
import type { StringMap } from "../placement/k8s-objects.js";
import { isDns1123Label, isLabelKey, isLabelValue } from "../placement/naming.js";
import { isNegative, parseQuantity, type Quantity } from "./quantity.js";
import { isRecord } from "./unknowns.js";

/** A configuration map as parsed from YAML/JSON. */
export type Fields = Readonly<Record<string, unknown>>;

/** A quantity as written in the configuration and its exact value. */
export interface ParsedQuantity {
  readonly text: string;
  readonly value: Quantity;
}

/** The value as a map, or a "must be a map" problem. */
export function record(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
): Fields | undefined {
  if (isRecord(value)) return value;
  problems.push({ key, message: `${key} must be a map` });
  return undefined;
}

/** One "is not a known setting" problem per key outside `allowed` (typos fail closed). */
export function rejectUnknown(
  fields: Fields,
  allowed: readonly string[],
  key: string,
  problems: ConfigurationProblem[],
  name: (field: string) => string = (field) => childKey(key, field),
): void {
  for (const field of Object.keys(fields)) {
    if (!allowed.includes(field)) {
      problems.push({ key: name(field), message: `${name(field)} is not a known setting` });
    }
  }
}

/** `parent.child`, or `parent["child"]` when the child would be ambiguous after a dot. */
export function childKey(parent: string, child: string): string {
  return /^[A-Za-z0-9_]+$/.test(child)
    ? `${parent}.${child}`
    : `${parent}[${JSON.stringify(child)}]`;
}

/** A non-negative quantity string; a number is reported with its quoted form. */
export function quantity(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
): ParsedQuantity | undefined {
  if (typeof value === "number") {
    problems.push({
      key,
      message: `${key} must be a quoted quantity string: write "${String(value)}" instead of ${String(value)}`,
    });
    return undefined;
  }
  if (typeof value !== "string") {
    problems.push({
      key,
      message: `${key} must be a quoted quantity string such as "500m" or "1Gi"`,
    });
    return undefined;
  }
  const parsed = parseQuantity(value);
  if (parsed === null) {
    problems.push({
      key,
      message: `${key} is not a Kubernetes quantity; use forms such as "500m", "1", "1Gi" or "1e3"`,
    });
    return undefined;
  }
  if (isNegative(parsed)) {
    problems.push({ key, message: `${key} must not be negative` });
    return undefined;
  }
  return { text: value, value: parsed };
}

/** A label map (absent → `{}`); keys and values must be valid label syntax. */
export function labels(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
): StringMap | undefined {
  if (value === undefined || value === null) return {};
  return entryMap(value, key, problems, (name, raw, entryKey) => {
    if (!isLabelKey(name)) {
      problems.push({ key: entryKey, message: `${entryKey}: the name is not a valid label key` });
      return undefined;
    }
    if (typeof raw !== "string") {
      const quoted =
        typeof raw === "number" || typeof raw === "boolean" ? `: write "${String(raw)}"` : "";
      problems.push({ key: entryKey, message: `${entryKey} must be a quoted string${quoted}` });
      return undefined;
    }
    if (!isLabelValue(raw)) {
      problems.push({ key: entryKey, message: `${entryKey} is not a valid label value` });
      return undefined;
    }
    return raw;
  });
}

/**
 * A map of strings whose every entry `entry` parses (pushing its own problem and answering
 * `undefined` for an invalid one, `entryKey` naming it); `undefined` when `value` is not a map
 * or any entry is invalid, so every invalid entry is reported at once.
 */
export function entryMap(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
  entry: (name: string, raw: unknown, entryKey: string) => string | undefined,
): StringMap | undefined {
  const fields = record(value, key, problems);
  if (fields === undefined) return undefined;
  const result: Record<string, string> = {};
  let valid = true;
  for (const [name, raw] of Object.entries(fields)) {
    const parsed = entry(name, raw, childKey(key, name));
    if (parsed === undefined) valid = false;
    else result[name] = parsed;
  }
  return valid ? result : undefined;
}

/** A DNS-1123 label such as a namespace name. */
export function dnsLabel(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
): string | undefined {
  if (typeof value === "string" && isDns1123Label(value)) return value;
  problems.push({
    key,
    message: `${key} must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)`,
  });
  return undefined;
}

/** An integer TCP/UDP port, 1–65535. */
export function port(
  value: unknown,
  key: string,
  problems: ConfigurationProblem[],
): number | undefined {
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 65535) {
    return value;
  }
  problems.push({ key, message: `${key} must be an integer port between 1 and 65535` });
  return undefined;
}
