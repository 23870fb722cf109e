/**
 * Agent work as a kind of the pass runner (`pass-runner.ts`; drivers.md §4, control-plane.md
 * §5):
 * - target: the Agent of the lane when it is in the state the work expects — `deleting` for
 *   teardown, `active` with a latest revision for deploy (deploy work converges the Agent to
 *   its *latest* revision, so work queued for an older revision simply finds the latest one
 *   active);
 * - permissions: `agent:deploy` / `agent:delete` on the Agent's Namespace;
 * - reconcile: the Workload Driver, unless the Namespace or a ServiceAccount or Secret the
 *   revision names is gone (refused, permanently);
 * - record: `agent-record.ts`.
 */
import type { CredentialSource, WorkloadDriver, WorkloadTenant } from "../drivers/workloads.js";
import type { Claim, WorkItem, WorkQueue } from "../queue/index.js";
import type { AgentRevisionRecord } from "../store/agent-revisions.js";
import { agentById } from "../store/agent-target.js";
import type { AgentRecord } from "../store/agents.js";
import type { Db } from "../store/db.js";
import { getNamespace, placementOf } from "../store/namespaces.js";
import { secretRows } from "../store/secrets.js";
import { serviceAccountRows } from "../store/service-accounts.js";
import type { AgentWorkKind } from "../work/agent-work.js";
import { agentIdOfSubject, laneIdSql } from "../work/lanes.js";
import {
  agentOutcomeOf,
  recordAgentOutcome,
  type AgentTarget,
  type AgentVerdict,
} from "./agent-record.js";
import {
  runPass,
  type PassSummary,
  type TargetDeclaration,
  type WorkHandler,
} from "./pass-runner.js";

export interface AgentPassDeps {
  readonly db: Db;
  readonly queue: WorkQueue<AgentWorkKind>;
  readonly workloads: WorkloadDriver;
}

/** The Agent of the claimed lane `c` and its newest revision. */
const AGENT_OF_LANE = agentById(laneIdSql("agent", "c.subject"));

/**
 * The Agent pass's target: the Agent of its lane in the state the work expects — `deleting`
 * for teardown, `active` with a latest revision for deploy.
 */
const AGENT_TARGET: TargetDeclaration<AgentWorkKind, AgentTarget> = {
  superseded: "the Agent is no longer in the state this work expects",
  sql: AGENT_OF_LANE.sql,
  read(item, row) {
    const agentId = agentIdOfSubject(item.subject);
    const found = agentId === null ? undefined : AGENT_OF_LANE.read(row);
    if (found === undefined || found.agent.id !== agentId) return null;
    const { agent, revision } = found;
    if (item.kind === "agent.teardown") {
      return agent.status === "deleting" ? { target: { agent, revision: undefined } } : null;
    }
    return agent.status === "active" && revision !== undefined
      ? { target: { agent, revision } }
      : null;
  },
};

/** The Agent work handler over `deps`' Workload Driver. */
export function agentWork(
  deps: Pick<AgentPassDeps, "workloads">,
): WorkHandler<AgentWorkKind, AgentTarget, AgentVerdict> {
  const verdictOf = async (
    db: Db,
    item: WorkItem<AgentWorkKind>,
    { agent, revision }: AgentTarget,
  ): Promise<AgentVerdict> => {
    const tenant = await tenantOf(db, agent);
    if (tenant === null) {
      return {
        kind: "refused",
        reason: {
          code: "KUBERNETES_OWNERSHIP_CONFLICT",
          message: "the Agent's Namespace is gone",
        },
      };
    }
    const credential = revision === undefined ? null : await credentialOf(db, revision);
    if (credential === "missing") {
      return {
        kind: "refused",
        reason: {
          code: "AGENT_REFERENCE_MISSING",
          message: "the revision's ServiceAccount or its credential Secret no longer exists",
        },
      };
    }
    if (item.kind === "agent.deploy" && revision !== undefined) {
      return {
        kind: "deploy",
        result: await deps.workloads.deployRevision({
          tenant,
          agentId: agent.id,
          executionMode: revision.executionMode,
          revisionId: revision.id,
          configurationDocument: revision.configurationDocument,
          credential,
        }),
      };
    }
    return {
      kind: "teardown",
      result: await deps.workloads.teardownAgent({ tenant, agentId: agent.id }),
    };
  };
  return {
    target: AGENT_TARGET,
    permissions: (item, { agent }) => [
      {
        permission: { action: item.kind === "agent.deploy" ? "deploy" : "delete", kind: "agent" },
        namespaceId: agent.namespaceId,
      },
    ],
    async reconcile(db, item, target) {
      const verdict = await verdictOf(db, item, target);
      return { verdict, outcome: agentOutcomeOf(verdict) };
    },
    record: recordAgentOutcome,
  };
}

/** Runs one claimed Agent work item (see `pass-runner.ts`). */
export function runAgentPass(
  deps: AgentPassDeps,
  claim: Claim<AgentWorkKind>,
): Promise<PassSummary> {
  return runPass(deps, agentWork(deps), claim);
}

/**
 * Where the revision's ServiceAccount keeps its credential: `null` without a ServiceAccount or
 * credential, `missing` when the snapshot names one that is gone (the revision cannot be
 * deployed as admitted).
 */
async function credentialOf(
  db: Db,
  revision: AgentRevisionRecord,
): Promise<CredentialSource | null | "missing"> {
  if (revision.serviceAccountId === null) return null;
  const ns = revision.namespaceId;
  const sa = await serviceAccountRows.get(db, ns, revision.serviceAccountId);
  if (sa === undefined) return "missing";
  if (sa.credentialKind === null || sa.credentialSecretId === null) return null;
  const secret = await secretRows.get(db, ns, sa.credentialSecretId);
  if (secret === undefined) return "missing";
  return {
    secretId: secret.id,
    kind: sa.credentialKind,
    kubernetesNamespace: secret.kubernetesNamespace,
    namespaceUid: secret.namespaceUid,
    objectName: secret.objectName,
    objectUid: secret.objectUid,
  };
}

async function tenantOf(db: Db, agent: AgentRecord): Promise<WorkloadTenant | null> {
  const ns = await getNamespace(db, agent.namespaceId);
  if (ns === undefined) return null;
  return {
    tenantId: ns.id,
    placement: placementOf(ns),
    recordedName: ns.kubernetesNamespace,
    recordedUid: ns.kubernetesUid,
  };
}
