/**
 * The Agent services (drivers.md §4). Check order on every route: authorize `agent:<action>`
 * (`agent_revision:read` for revisions) on the Namespace first — no existence oracle — then
 * look up (404), then state (409), then Kubernetes.
 *
 * - create records the Agent (no Kubernetes object yet): its Configuration and ServiceAccount
 *   must be of the same Namespace (400 otherwise);
 * - deploy admits an immutable AgentRevision — the Configuration document as stored now (read
 *   and verified through the Configuration Driver), its generation, the execution mode, the
 *   ServiceAccount and the Compute selection — and queues its revision work, in one
 *   transaction with its audit event; the Namespace must be `ready`;
 * - delete marks the Agent `deleting` and queues its teardown; the row goes once the worker
 *   removed everything (a repeat is a no-op, a teardown that failed permanently is requeued).
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import { newAgentId, newRevisionId } from "../../domain/workloads/ids.js";
import {
  agentTeardownWorkKey,
  revisionWorkKey,
  type AgentWorkKind,
} from "../../work/agent-work.js";
import { agentWorkSubject } from "../../work/lanes.js";
import { enqueueWork } from "../../work/work-config.js";
import { reopen } from "../../queue/enqueue.js";
import type { QueueConfig } from "../../queue/work-items.js";
import { insertAgentRevision, type AgentRevisionRecord } from "../../store/agent-revisions.js";
import {
  getAgent,
  insertAgent,
  listAgents,
  markAgentDeleting,
  type AgentRecord,
} from "../../store/agents.js";
import { getConfiguration } from "../../store/configurations.js";
import type { Queryable } from "../../store/db.js";
import type { ResourcePage, ResourcePageOptions } from "../../store/resource-paging.js";
import { getServiceAccount } from "../../store/service-accounts.js";
import { recordMutation, recordingDenials, type Caller } from "../authorization.js";
import type { ComputeSelection } from "../compute-selection.js";
import { ServiceError } from "../errors.js";
import {
  compensatedTransaction,
  driversOf,
  liveNamespace,
  requireWritable,
  tenantPlacementOf,
  type TenantServiceDeps,
} from "../tenant/access.js";
import { resourceAccess } from "../tenant/resource-access.js";
import type { CreateAgentBody } from "../../contract/agents.js";

/** What the Agent services need beyond the tenant resources' dependencies. */
export interface AgentServiceDeps extends TenantServiceDeps {
  readonly agentQueue: QueueConfig<AgentWorkKind>;
  readonly compute: ComputeSelection;
}

export const agentAccess = resourceAccess<"create" | "read" | "delete" | "deploy">(
  "agent",
  "agents",
);

/** The Agent `id` of the Namespace, or 404. */
export async function foundAgent(
  q: Queryable,
  namespaceId: NamespaceId,
  id: string,
  forUpdate = false,
): Promise<AgentRecord> {
  const row = await getAgent(q, namespaceId, id, { forUpdate });
  if (row === undefined) throw new ServiceError("NOT_FOUND", "No such Agent.");
  return row;
}

const invalid = (path: string, message: string) =>
  new ServiceError("INVALID_REQUEST", message, { details: [{ path, code: "invalid_value" }] });

export function createAgent(
  deps: AgentServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  body: CreateAgentBody,
): Promise<AgentRecord> {
  return recordingDenials(deps.db, caller, async () => {
    const grant = await agentAccess.authorize(deps, caller, namespaceId, "create");
    return deps.db.transaction(async (tx) => {
      const ns = await liveNamespace(tx, namespaceId, { lock: true });
      requireWritable(ns, { recordsOnly: true });
      if ((await getConfiguration(tx, namespaceId, body.configurationId)) === undefined) {
        throw invalid(
          "/body/configurationId",
          "configurationId names no Configuration of this Namespace.",
        );
      }
      const sa = body.serviceAccountId;
      if (sa !== undefined && (await getServiceAccount(tx, namespaceId, sa)) === undefined) {
        throw invalid(
          "/body/serviceAccountId",
          "serviceAccountId names no ServiceAccount of this Namespace.",
        );
      }
      const id = newAgentId();
      const inserted = await insertAgent(tx, {
        id,
        namespaceId,
        name: body.name,
        configurationId: body.configurationId,
        executionMode: body.executionMode,
        serviceAccountId: sa ?? null,
      });
      if (inserted.outcome === "name_in_use") {
        throw new ServiceError(
          "RESOURCE_CONFLICT",
          "An Agent with this name already exists in the Namespace.",
        );
      }
      await recordMutation(tx, caller, agentAccess.subjectOf("create", id), grant, {
        namespaceId,
        name: body.name,
        executionMode: body.executionMode,
      });
      return inserted.agent;
    });
  });
}

export function readAgent(
  deps: AgentServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  id: string,
): Promise<AgentRecord> {
  return agentAccess.read(deps, caller, namespaceId, id, () =>
    foundAgent(deps.db, namespaceId, id),
  );
}

export function listNamespaceAgents(
  deps: AgentServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  opts: ResourcePageOptions,
): Promise<ResourcePage<AgentRecord>> {
  return agentAccess.read(deps, caller, namespaceId, undefined, () =>
    listAgents(deps.db, namespaceId, opts),
  );
}

export function deployAgent(
  deps: AgentServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  id: string,
): Promise<AgentRevisionRecord> {
  return recordingDenials(deps.db, caller, async () => {
    const grant = await agentAccess.authorize(deps, caller, namespaceId, "deploy", id);
    return compensatedTransaction(deps, async (tx) => {
      const ns = await liveNamespace(tx, namespaceId, { lock: true });
      const agent = await foundAgent(tx, namespaceId, id, true);
      requireWritable(ns);
      if (agent.status === "deleting") {
        throw new ServiceError(
          "RESOURCE_CONFLICT",
          "The Agent is being deleted; it takes no deploys.",
        );
      }
      const configuration = await getConfiguration(tx, namespaceId, agent.configurationId);
      if (configuration === undefined) {
        throw new ServiceError("RESOURCE_CONFLICT", "The Agent's Configuration no longer exists.");
      }
      const sa = agent.serviceAccountId;
      if (sa !== null && (await getServiceAccount(tx, namespaceId, sa)) === undefined) {
        throw new ServiceError("RESOURCE_CONFLICT", "The Agent's ServiceAccount no longer exists.");
      }
      const driver = driversOf(deps).configurations;
      const bound = await driver.resolve(tenantPlacementOf(ns));
      const document = await driver.read(bound, namespaceId, configuration);
      const revision = await insertAgentRevision(tx, {
        id: newRevisionId(),
        agentId: agent.id,
        namespaceId,
        configurationId: configuration.id,
        configurationGeneration: configuration.generation,
        configurationDocument: document,
        executionMode: agent.executionMode,
        serviceAccountId: sa,
        compute: { ...deps.compute },
      });
      await enqueueWork(deps.agentQueue, tx, {
        kind: "agent.deploy",
        subject: agentWorkSubject(agent.id),
        key: revisionWorkKey(agent.id, revision.id),
        actor: caller.principalId,
      });
      await recordMutation(tx, caller, agentAccess.subjectOf("deploy", agent.id), grant, {
        namespaceId,
        revisionId: revision.id,
        number: revision.number,
        configurationGeneration: configuration.generation,
      });
      return revision;
    });
  });
}

export function deleteAgent(
  deps: AgentServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  id: string,
): Promise<AgentRecord> {
  return recordingDenials(deps.db, caller, async () => {
    const grant = await agentAccess.authorize(deps, caller, namespaceId, "delete", id);
    return deps.db.transaction(async (tx) => {
      await liveNamespace(tx, namespaceId, { lock: true });
      const agent = await foundAgent(tx, namespaceId, id, true);
      const key = agentTeardownWorkKey(agent.id);
      if (agent.status === "deleting") {
        const reopened = await reopen(deps.agentQueue, tx, { key, actor: caller.principalId });
        if (reopened.outcome !== "reopened") return agent;
      } else {
        await enqueueWork(deps.agentQueue, tx, {
          kind: "agent.teardown",
          subject: agentWorkSubject(agent.id),
          key,
          actor: caller.principalId,
        });
      }
      const deleting = agent.status === "deleting" ? agent : await markAgentDeleting(tx, agent.id);
      await recordMutation(tx, caller, agentAccess.subjectOf("delete", agent.id), grant, {
        namespaceId,
      });
      return deleting;
    });
  });
}
