/**
 * Server-generated IDs: a prefix and a lowercase UUIDv4 (`ns_…`, `agt_…`, `rev_…`), checked by
 * the pattern of their kind and branded. Callers never choose one.
 */
import { randomUUID } from "node:crypto";

/** A type guard for the strings `pattern` matches, branded `T`. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- T is the brand the caller names
export function matching<T extends string>(pattern: RegExp): (value: unknown) => value is T {
  return (value: unknown): value is T => typeof value === "string" && pattern.test(value);
}

/**
 * `prefix` + a new UUID, checked by `guard`. `randomUUID` returns a lowercase RFC 4122
 * version-4 UUID; failing loudly on anything else beats storing a malformed ID.
 */
export function newUuidId<T extends string>(
  prefix: string,
  guard: (value: unknown) => value is T,
): T {
  const id = `${prefix}${randomUUID()}`;
  if (!guard(id)) throw new Error("randomUUID() did not return a lowercase UUIDv4");
  return id;
}
