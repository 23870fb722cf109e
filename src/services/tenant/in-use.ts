/**
 * A Configuration or ServiceAccount that an Agent references cannot be deleted (409
 * `RESOURCE_CONFLICT`): the Agent's next deploy would fail, and a queued revision would fail
 * permanently. The message names the Agents (within the 256-character limit) and the fix.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import { agentsReferencing } from "../../store/agents.js";
import type { Queryable } from "../../store/db.js";
import { ServiceError } from "../errors.js";

const MAX_MESSAGE = 256;

export async function refuseWhileAgentsReference(
  q: Queryable,
  namespaceId: NamespaceId,
  ref: { readonly configurationId: string } | { readonly serviceAccountId: string },
  what: "Configuration" | "ServiceAccount",
): Promise<void> {
  const { count, names } = await agentsReferencing(q, namespaceId, ref);
  if (count === 0) return;
  const more = count > names.length ? ` and ${count - names.length} more` : "";
  const message = `The ${what} is used by ${count} Agent(s): ${names.join(", ")}${more}; delete those Agents or point them elsewhere first.`;
  throw new ServiceError(
    "RESOURCE_CONFLICT",
    message.length <= MAX_MESSAGE
      ? message
      : `The ${what} is used by ${count} Agent(s); delete those Agents first.`,
  );
}
