/**
 * What keeps a Namespace from being deleted (control-plane.md §2): Agents, Configurations,
 * Secrets and ServiceAccounts that still exist in it. Each resource kind contributes one
 * {@link NamespaceContentCheck}; the issues that add those resources add their check to the
 * list the app is built with, and DELETE refuses with `NAMESPACE_NOT_EMPTY` while any count is
 * above zero, naming the first few that remain.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import type { Queryable } from "../../store/db.js";
import { firstAgentIds } from "../../store/agents.js";
import { firstIds } from "../../store/resource-paging.js";
import { clipMessage } from "../errors.js";
import { MAX_MESSAGE_LENGTH } from "../../contract/errors.js";

/** Counts one kind of resource left in a Namespace, in the caller's transaction. */
export interface NamespaceContentCheck {
  /** For the message: `Agent` / `Agents`. */
  readonly singular: string;
  readonly plural: string;
  count(q: Queryable, namespaceId: NamespaceId): Promise<number>;
  /** The IDs of the first few left, for the message; optional. */
  sample?(q: Queryable, namespaceId: NamespaceId): Promise<readonly string[]>;
}

/** How many IDs of each kind a refusal names. */
const SAMPLE_SIZE = 3;

function tableCheck(
  table: "configurations" | "secrets" | "service_accounts",
  singular: string,
  plural: string,
): NamespaceContentCheck {
  return {
    singular,
    plural,
    count: async (q, id) => (await firstIds(q, table, id, 1)).count,
    sample: async (q, id) => (await firstIds(q, table, id, SAMPLE_SIZE)).ids,
  };
}

/** Agents, in any status: a `deleting` Agent may still have objects in the cluster. */
const agentCheck: NamespaceContentCheck = {
  singular: "Agent",
  plural: "Agents",
  count: async (q, id) => (await firstAgentIds(q, id, 1)).count,
  sample: async (q, id) => (await firstAgentIds(q, id, SAMPLE_SIZE)).ids,
};

/** The checks the API runs by default: the resource kinds that exist today. */
export const DEFAULT_NAMESPACE_CONTENT_CHECKS: readonly NamespaceContentCheck[] = [
  agentCheck,
  tableCheck("configurations", "Configuration", "Configurations"),
  tableCheck("secrets", "Secret", "Secrets"),
  tableCheck("service_accounts", "ServiceAccount", "ServiceAccounts"),
];

/** One kind of resource left behind. */
export interface RemainingContent {
  readonly singular: string;
  readonly plural: string;
  readonly count: number;
  /** The first few IDs, when the check names them. */
  readonly ids?: readonly string[];
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
    if (count === 0) continue;
    const ids = check.sample === undefined ? undefined : await check.sample(q, namespaceId);
    out.push({
      singular: check.singular,
      plural: check.plural,
      count,
      ...(ids === undefined ? {} : { ids }),
    });
  }
  return out;
}

/**
 * `The Namespace still holds 2 Agents and 1 Configuration (cfg_…); delete them first.` —
 * every kind named, with the first IDs of each when they fit in the 256-character message
 * limit (otherwise without IDs, so no kind is cut off).
 */
export function notEmptyMessage(remaining: readonly RemainingContent[]): string {
  const withIds = sentence(remaining, true);
  return Array.from(withIds).length <= MAX_MESSAGE_LENGTH
    ? withIds
    : clipMessage(sentence(remaining, false));
}

function sentence(remaining: readonly RemainingContent[], ids: boolean): string {
  const parts = remaining.map((r) => {
    const what = `${r.count} ${r.count === 1 ? r.singular : r.plural}`;
    if (!ids || r.ids === undefined || r.ids.length === 0) return what;
    return `${what} (${r.ids.join(", ")}${r.count > r.ids.length ? ", …" : ""})`;
  });
  const list =
    parts.length <= 1
      ? parts.join("")
      : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1] ?? ""}`;
  return `The Namespace still holds ${list}; delete them first.`;
}
