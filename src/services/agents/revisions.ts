/**
 * The AgentRevision read services (drivers.md §4): `agent_revision:read` on the Namespace
 * first, then the Agent (404), then its revisions, oldest first.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import {
  getAgentRevision,
  listAgentRevisions,
  type AgentRevisionRecord,
} from "../../store/agent-revisions.js";
import type { Page, PageOptions } from "../../store/paging.js";
import type { Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";
import type { TenantServiceDeps } from "../tenant/access.js";
import { resourceAccess } from "../tenant/resource-access.js";
import { foundAgent } from "./agents.js";

const access = resourceAccess<"read">("agent_revision", "agent_revisions");

export function listRevisions(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  agentId: string,
  opts: PageOptions,
): Promise<Page<AgentRevisionRecord>> {
  return access.read(deps, caller, namespaceId, undefined, async () => {
    await foundAgent(deps.db, namespaceId, agentId);
    return listAgentRevisions(deps.db, agentId, opts);
  });
}

export function readRevision(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  agentId: string,
  revisionId: string,
): Promise<AgentRevisionRecord> {
  return access.read(deps, caller, namespaceId, revisionId, async () => {
    await foundAgent(deps.db, namespaceId, agentId);
    const found = await getAgentRevision(deps.db, agentId, revisionId);
    if (found === undefined) throw new ServiceError("NOT_FOUND", "No such AgentRevision.");
    return found;
  });
}
