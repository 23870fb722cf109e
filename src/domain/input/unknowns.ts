/**
 * Reading values whose type is not known (a caught error, a parsed document, a framework's
 * loosely typed field) by checking, not asserting: each helper narrows what it finds and
 * answers `undefined` (or a fallback) for anything else.
 */

/** A plain object (not null, not an array), its fields unknown. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Field `key` of `value` when `value` is an object, else `undefined`. */
export function fieldOf(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined;
}

/** What a caught value says: an Error's message, or the value as a string. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The `code` of a Node.js system error (`ENOENT`…), or `undefined`. */
export function errnoCodeOf(err: unknown): string | undefined {
  const code = fieldOf(err, "code");
  return typeof code === "string" ? code : undefined;
}

/** `value` when it is one of `vocabulary`, typed as such; else `undefined`. */
export function oneOf<T extends string>(vocabulary: readonly T[], value: unknown): T | undefined {
  return vocabulary.find((word) => word === value);
}

/** The TCP port of a listening server's `address()`; throws when it is not listening on one. */
export function listeningPort(address: unknown): number {
  const port = fieldOf(address, "port");
  if (typeof port !== "number") throw new Error("the server is not listening on a TCP port");
  return port;
}

/**
 * The keys of a record whose keys are exactly `K` (a vocabulary table written out in full):
 * the one place that tells TypeScript what `Object.keys` cannot know.
 */
export function keysOf<K extends string>(table: Readonly<Record<K, unknown>>): K[] {
  return Object.keys(table) as K[];
}
