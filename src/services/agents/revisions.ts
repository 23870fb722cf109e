/**
 * The AgentRevision read services (drivers.md §4): `agent_revision:read` on the Namespace
 * first, then the Agent (404), then its revisions, oldest first.
 */
import {
  getAgentRevision,
  listAgentRevisions,
  type AgentRevisionRecord,
} from "../../store/agent-revisions.js";
import type { Page, PageOptions } from "../../store/paging.js";
import { ServiceError } from "../errors.js";
import { resourceAccess, type NamespaceCall } from "../tenant/resource-access.js";
import { foundAgent } from "./agents.js";

const access = resourceAccess<"read">("agent_revision", "agent_revisions");

/** An Agent's revisions, oldest first. */
export function listRevisions(
  call: NamespaceCall,
  agentId: string,
  opts: PageOptions,
): Promise<Page<AgentRevisionRecord>> {
  return access.read(call, undefined, async (ns) => {
    await foundAgent(call.deps.db, ns.id, agentId);
    return listAgentRevisions(call.deps.db, agentId, opts);
  });
}

/** One AgentRevision of the Agent. */
export function readRevision(
  call: NamespaceCall,
  agentId: string,
  revisionId: string,
): Promise<AgentRevisionRecord> {
  return access.read(call, revisionId, async (ns) => {
    await foundAgent(call.deps.db, ns.id, agentId);
    const found = await getAgentRevision(call.deps.db, agentId, revisionId);
    if (found === undefined) throw new ServiceError("NOT_FOUND", "No such AgentRevision.");
    return found;
  });
}
