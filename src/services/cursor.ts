/**
 * Opaque paging cursors (control-plane.md §2). A cursor is the position after the last item of
 * a page — its time and ID — as base64url JSON. It is opaque to clients; a cursor that does not
 * decode to a valid position is refused (`INVALID_REQUEST`), and a forged one can only move the
 * window over items the caller is allowed to see anyway (every listing filters before paging).
 */
import type { PageCursor, PageOptions } from "../store/paging.js";
import { ServiceError } from "./errors.js";

/** A position in a collection ordered by (time, id). */
export interface CursorPosition<I extends string> {
  readonly time: Date;
  readonly id: I;
}

/** Encodes a position. */
export function encodeCursor(time: Date, id: string): string {
  return Buffer.from(JSON.stringify([time.toISOString(), id]), "utf8").toString("base64url");
}

/**
 * Decodes a cursor whose ID must satisfy `isId`; throws `INVALID_REQUEST` pointing at the
 * `cursor` query parameter otherwise.
 */
export function decodeCursor<I extends string>(
  cursor: string,
  isId: (v: unknown) => v is I,
): CursorPosition<I> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 2) {
    const time: unknown = parsed[0];
    const id: unknown = parsed[1];
    const at = typeof time === "string" ? new Date(time) : undefined;
    // Years the database can hold and this API could have written; anything else is forged.
    const year = at?.getUTCFullYear() ?? Number.NaN;
    if (at !== undefined && year >= 1970 && year <= 9999 && isId(id)) return { time: at, id };
  }
  throw new ServiceError("INVALID_REQUEST", "cursor is not a cursor this API returned.", {
    details: [{ path: "/querystring/cursor", code: "invalid_value" }],
  });
}

/** The page size to use: the caller's `limit` or the default. */
export function pageLimit(limit: number | undefined): number {
  return limit ?? 100;
}

/**
 * The page a request's query asks for: its `limit` (or the default), after the position of its
 * `cursor`, whose ID must satisfy `isId` (400 otherwise, see {@link decodeCursor}).
 */
export function pageOptions<I extends string>(
  query: { readonly limit?: number | undefined; readonly cursor?: string | undefined },
  isId: (v: unknown) => v is I,
): PageOptions & { readonly after?: { readonly createdAt: Date; readonly id: I } | undefined } {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, isId);
  return {
    limit: pageLimit(query.limit),
    after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
  };
}

/** The cursor of the page after one that ended at `next` (`null` after the last page). */
export function nextCursor(next: PageCursor | null): string | null {
  return next === null ? null : encodeCursor(next.createdAt, next.id);
}
