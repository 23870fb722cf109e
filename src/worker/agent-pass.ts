/**
 * One level-based pass over claimed Agent work (drivers.md §4, control-plane.md §5), the same
 * shape as a Namespace pass:
 * 1. an Agent that is gone, or no longer in the state the work expects → complete as
 *    superseded, no Driver call (deploy work converges the Agent to its *latest* revision, so
 *    work queued for an older revision simply finds the latest one active);
 * 2. a claim whose attempts were all spent by earlier holders that died → fail;
 * 3. re-authorize the frozen actor (`agent:deploy` / `agent:delete` on the Namespace);
 * 4. call the Workload Driver while the lease is kept alive;
 * 5. in one transaction: the fenced queue move, the Agent/revision outcome and its audit
 *    event. A stale lease publishes nothing.
 */
import type { CredentialSource, WorkloadDriver, WorkloadTenant } from "../drivers/workloads.js";
import type { AgentWorkKind } from "../work/agent-work.js";
import { agentIdOfSubject } from "../work/lanes.js";
import { isExhausted, type Claim, type WorkQueue } from "../queue/index.js";
import { latestAgentRevision, type AgentRevisionRecord } from "../store/agent-revisions.js";
import { getAgent, type AgentRecord } from "../store/agents.js";
import type { Db } from "../store/db.js";
import { getNamespace, placementOf } from "../store/namespaces.js";
import { getSecret } from "../store/secrets.js";
import { getServiceAccount } from "../store/service-accounts.js";
import { settleAgentPass, type AgentVerdict } from "./agent-outcome.js";
import type { PassSummary } from "./namespace-pass.js";
import { reauthorize } from "./reauthorize.js";

export interface AgentPassDeps {
  readonly db: Db;
  readonly queue: WorkQueue<AgentWorkKind>;
  readonly workloads: WorkloadDriver;
}

/** Runs one claimed Agent work item (see the module comment). */
export async function runAgentPass(
  deps: AgentPassDeps,
  claim: Claim<AgentWorkKind>,
): Promise<PassSummary> {
  const { db, queue } = deps;
  const { item, lease } = claim;
  const agentId = agentIdOfSubject(item.subject);
  const agent = agentId === null ? undefined : await getAgent(db, null, agentId);
  const revision =
    agent === undefined || item.kind !== "agent.deploy"
      ? undefined
      : await latestAgentRevision(db, agent.id);
  const expected =
    item.kind === "agent.teardown"
      ? agent?.status === "deleting"
      : agent?.status === "active" && revision !== undefined;
  if (!expected || agent === undefined) {
    const done = await queue.complete(db, lease, {
      code: "SUPERSEDED",
      message: "the Agent is no longer in the state this work expects",
    });
    return { result: done.outcome === "applied" ? "superseded" : "stale" };
  }
  const target: Target = { agent, revision };
  if (isExhausted(claim)) {
    return settleAgentPass(deps, claim, target, {
      kind: "stopped",
      reason: {
        code: "KUBERNETES_API_UNAVAILABLE",
        message: "every attempt was spent by workers that stopped mid-attempt",
      },
    });
  }
  const action = item.kind === "agent.deploy" ? "deploy" : "delete";
  const denied = await reauthorize(db, item.actor, [
    { permission: { action, kind: "agent" }, namespaceId: agent.namespaceId },
  ]);
  if (denied !== null)
    return settleAgentPass(deps, claim, target, { kind: "stopped", reason: denied });

  const tenant = await tenantOf(db, agent);
  const credential = revision === undefined ? null : await credentialOf(db, revision);
  const keeper = queue.keepAlive(db, lease);
  let verdict: AgentVerdict;
  try {
    if (tenant === null) {
      verdict = {
        kind: "stopped",
        reason: { code: "KUBERNETES_OWNERSHIP_CONFLICT", message: "the Agent's Namespace is gone" },
      };
    } else if (credential === "missing") {
      verdict = {
        kind: "stopped",
        reason: {
          code: "AGENT_REFERENCE_MISSING",
          message: "the revision's ServiceAccount or its credential Secret no longer exists",
        },
      };
    } else if (item.kind === "agent.deploy" && revision !== undefined) {
      verdict = {
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
    } else {
      verdict = {
        kind: "teardown",
        result: await deps.workloads.teardownAgent({ tenant, agentId: agent.id }),
      };
    }
  } finally {
    await keeper.stop();
  }
  return settleAgentPass(deps, { item, lease: keeper.current() }, target, verdict);
}

/** What a pass is about: the Agent, and for deploy work its latest revision. */
export interface Target {
  readonly agent: AgentRecord;
  readonly revision: AgentRevisionRecord | undefined;
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
  const sa = await getServiceAccount(db, ns, revision.serviceAccountId);
  if (sa === undefined) return "missing";
  if (sa.credentialKind === null || sa.credentialSecretId === null) return null;
  const secret = await getSecret(db, ns, sa.credentialSecretId);
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
