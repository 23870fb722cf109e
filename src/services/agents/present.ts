/** Agent and revision records as the API shows them (drivers.md §4). */
import type { AgentView, RevisionView } from "../../contract/agents.js";
import type { AgentRevisionRecord } from "../../store/agent-revisions.js";
import type { AgentRecord } from "../../store/agents.js";

function reasonOf(r: { statusCode: string | null; statusMessage: string | null }) {
  return r.statusCode === null || r.statusMessage === null
    ? null
    : { code: r.statusCode, message: r.statusMessage };
}

export function presentAgent(a: AgentRecord): AgentView {
  return {
    id: a.id,
    namespaceId: a.namespaceId,
    name: a.name,
    configurationId: a.configurationId,
    executionMode: a.executionMode,
    serviceAccountId: a.serviceAccountId,
    status: a.status,
    currentRevisionId: a.currentRevisionId,
    statusReason: reasonOf(a),
    createdAt: a.createdAt.toISOString(),
  };
}

export function presentRevision(r: AgentRevisionRecord): RevisionView {
  return {
    id: r.id,
    agentId: r.agentId,
    namespaceId: r.namespaceId,
    number: r.number,
    configurationId: r.configurationId,
    configurationGeneration: r.configurationGeneration,
    executionMode: r.executionMode,
    serviceAccountId: r.serviceAccountId,
    compute: Object.fromEntries(
      Object.entries(r.compute).filter((e): e is [string, string] => typeof e[1] === "string"),
    ),
    status: r.status,
    statusReason: reasonOf(r),
    createdAt: r.createdAt.toISOString(),
    activatedAt: r.activatedAt === null ? null : r.activatedAt.toISOString(),
  };
}
