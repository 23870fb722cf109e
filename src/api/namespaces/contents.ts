/**
 * What keeps a Namespace from being deleted (control-plane.md §2): Agents, Configurations,
 * Secrets and ServiceAccounts that still exist in it. Each resource kind contributes one
 * {@link NamespaceContentCheck}; the issues that add those resources add their check to the
 * list the app is built with, and DELETE refuses with `NAMESPACE_NOT_EMPTY` while any count is
 * above zero. None exist yet, so the default list is empty.
 */
import type { NamespaceId } from "../../domain/ids.js";
import type { Queryable } from "../../store/db.js";
import { clipMessage } from "../errors.js";

/** Counts one kind of resource left in a Namespace, in the caller's transaction. */
export interface NamespaceContentCheck {
  /** For the message: `Agent` / `Agents`. */
  readonly singular: string;
  readonly plural: string;
  count(q: Queryable, namespaceId: NamespaceId): Promise<number>;
}

/** The checks the API runs by default (the resource kinds that exist today: none). */
export const DEFAULT_NAMESPACE_CONTENT_CHECKS: readonly NamespaceContentCheck[] = [];

/** One kind of resource left behind. */
export interface RemainingContent {
  readonly singular: string;
  readonly plural: string;
  readonly count: number;
}

/** Runs every check in order and returns the kinds with a count above zero. */
export async function remainingContents(
  q: Queryable,
  namespaceId: NamespaceId,
  checks: readonly NamespaceContentCheck[],
): Promise<RemainingContent[]> {
  const out: RemainingContent[] = [];
  for (const check of checks) {
    const count = await check.count(q, namespaceId);
    if (count > 0) out.push({ singular: check.singular, plural: check.plural, count });
  }
  return out;
}

/**
 * `The Namespace still holds 2 Agents and 1 Configuration; delete them first.` — every kind
 * named, within the 256-character message limit.
 */
export function notEmptyMessage(remaining: readonly RemainingContent[]): string {
  const parts = remaining.map((r) => `${r.count} ${r.count === 1 ? r.singular : r.plural}`);
  const list =
    parts.length <= 1
      ? parts.join("")
      : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1] ?? ""}`;
  return clipMessage(`The Namespace still holds ${list}; delete them first.`);
}
