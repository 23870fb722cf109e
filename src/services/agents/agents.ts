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
import { agentRows, insertAgent, markAgentDeleting, type AgentRecord } from "../../store/agents.js";
import { configurationRows } from "../../store/configurations.js";
import { serviceAccountRows } from "../../store/service-accounts.js";
import type { ComputeSelection } from "../compute-selection.js";
import { requireNameFree, ServiceError } from "../errors.js";
import {
  boundDriver,
  liveNamespace,
  namespaceTransaction,
  requireWritable,
  type TenantServiceDeps,
} from "../tenant/access.js";
import {
  foundIn,
  rowReads,
  resourceAccess,
  type NamespaceCall,
  type ResourceService,
} from "../tenant/resource-access.js";
import type { CreateAgentBody } from "../../contract/agents.js";

/** What the Agent services need beyond the tenant resources' dependencies. */
export interface AgentServiceDeps extends TenantServiceDeps {
  readonly agentQueue: QueueConfig<AgentWorkKind>;
  readonly compute: ComputeSelection;
}

/** One Agent service call. */
export type AgentCall = NamespaceCall<AgentServiceDeps>;

export const agentAccess = resourceAccess<"create" | "read" | "delete" | "deploy">(
  "agent",
  "agents",
);

/** The Agent `id` of the Namespace, or 404. */
export const foundAgent = foundIn(agentRows, "Agent");

const invalid = (path: string, message: string) =>
  new ServiceError("INVALID_REQUEST", message, { details: [{ path, code: "invalid_value" }] });

/** The Agent use cases: a resource service whose delete answers the Agent, plus deploy. */
export interface AgentService extends Omit<
  ResourceService<AgentRecord, CreateAgentBody, unknown, AgentServiceDeps>,
  "remove"
> {
  /** Marks the Agent `deleting` and queues its teardown; answers the Agent. */
  readonly remove: (call: AgentCall, id: string) => Promise<AgentRecord>;
  /** Admits an AgentRevision and queues its rollout. */
  readonly deploy: (call: AgentCall, id: string) => Promise<AgentRevisionRecord>;
}

export const agents: AgentService = {
  create: (call, body) =>
    agentAccess.write(call, "create", undefined, (audit) =>
      call.deps.db.transaction(async (tx) => {
        const ns = await liveNamespace(tx, call.namespaceId, { lock: true });
        requireWritable(ns, { recordsOnly: true });
        if ((await configurationRows.get(tx, ns.id, body.configurationId)) === undefined) {
          throw invalid(
            "/body/configurationId",
            "configurationId names no Configuration of this Namespace.",
          );
        }
        const sa = body.serviceAccountId;
        if (sa !== undefined && (await serviceAccountRows.get(tx, ns.id, sa)) === undefined) {
          throw invalid(
            "/body/serviceAccountId",
            "serviceAccountId names no ServiceAccount of this Namespace.",
          );
        }
        const id = newAgentId();
        const inserted = await insertAgent(tx, {
          id,
          namespaceId: ns.id,
          name: body.name,
          configurationId: body.configurationId,
          executionMode: body.executionMode,
          serviceAccountId: sa ?? null,
        });
        requireNameFree(inserted, "An Agent with this name already exists in the Namespace.");
        await audit(tx, id, {
          namespaceId: ns.id,
          name: body.name,
          executionMode: body.executionMode,
        });
        return inserted.agent;
      }),
    ),

  ...rowReads(agentAccess, agentRows, "Agent"),

  deploy: (call, id) =>
    agentAccess.write(call, "deploy", id, (audit) =>
      namespaceTransaction(call, async (tx, ns) => {
        const agent = await foundAgent(tx, ns.id, id, true);
        requireWritable(ns);
        if (agent.status === "deleting") {
          throw new ServiceError(
            "RESOURCE_CONFLICT",
            "The Agent is being deleted; it takes no deploys.",
          );
        }
        const configuration = await configurationRows.get(tx, ns.id, agent.configurationId);
        if (configuration === undefined) {
          throw new ServiceError(
            "RESOURCE_CONFLICT",
            "The Agent's Configuration no longer exists.",
          );
        }
        const sa = agent.serviceAccountId;
        if (sa !== null && (await serviceAccountRows.get(tx, ns.id, sa)) === undefined) {
          throw new ServiceError(
            "RESOURCE_CONFLICT",
            "The Agent's ServiceAccount no longer exists.",
          );
        }
        const { driver, bound } = await boundDriver(call.deps, "configurations", ns, "write");
        const document = await driver.read(bound, ns.id, configuration);
        const revision = await insertAgentRevision(tx, {
          id: newRevisionId(),
          agentId: agent.id,
          namespaceId: ns.id,
          configurationId: configuration.id,
          configurationGeneration: configuration.generation,
          configurationDocument: document,
          executionMode: agent.executionMode,
          serviceAccountId: sa,
          compute: { ...call.deps.compute },
        });
        await enqueueWork(call.deps.agentQueue, tx, {
          kind: "agent.deploy",
          subject: agentWorkSubject(agent.id),
          key: revisionWorkKey(agent.id, revision.id),
          actor: call.caller.principalId,
        });
        await audit(tx, agent.id, {
          namespaceId: ns.id,
          revisionId: revision.id,
          number: revision.number,
          configurationGeneration: configuration.generation,
        });
        return revision;
      }),
    ),

  remove: (call, id) =>
    agentAccess.write(call, "delete", id, (audit) =>
      call.deps.db.transaction(async (tx) => {
        const { deps, caller, namespaceId } = call;
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
        const deleting =
          agent.status === "deleting" ? agent : await markAgentDeleting(tx, agent.id);
        await audit(tx, agent.id, { namespaceId });
        return deleting;
      }),
    ),
};
