/**
 * What a revision pass removes once the gateway serves the new revision: the other revisions'
 * own objects, and an egress policy the Installation no longer asks for. Only objects with
 * exactly this Agent's (and that revision's) markers, each by UID.
 */
import {
  hasMarkers,
  LABELS,
  REVISION_SCOPED_KINDS,
  retirementPlan,
  workloadMarkers,
  agentObjectNames,
  type HasMetadata,
  type WorkloadNotDone,
} from "../../../domain/index.js";
import { isKubeError, type ObjectClient } from "../client/index.js";
import { kubeFailure } from "./context.js";

/**
 * Without a Credential Proxy the Agent has no egress policy: one left from a configuration
 * that had it is deleted (by UID, only with this Agent's exact markers).
 */
export async function removeEgressPolicy(
  client: ObjectClient,
  namespace: string,
  tenantId: string,
  agentId: string,
): Promise<WorkloadNotDone | null> {
  const name = agentObjectNames(agentId).egressPolicy;
  try {
    const found = await client.find("NetworkPolicy", { name, namespace });
    const uid = found?.metadata.uid;
    const markers = workloadMarkers(tenantId, agentId, { scope: "agent" });
    if (found === undefined || uid === undefined || !hasMarkers(found.metadata, markers)) {
      return null;
    }
    await client.delete("NetworkPolicy", { name, namespace }, { uid });
  } catch (err) {
    if (isKubeError(err, "not-found") || isKubeError(err, "conflict")) return null;
    return kubeFailure(err, `delete NetworkPolicy ${name}`, namespace);
  }
  return null;
}

export async function retireOthers(
  client: ObjectClient,
  namespace: string,
  tenantId: string,
  agentId: string,
  currentRevisionId: string,
): Promise<WorkloadNotDone | null> {
  const observed: Record<string, HasMetadata[]> = {};
  try {
    for (const kind of REVISION_SCOPED_KINDS) {
      observed[kind] = await client.list(kind, {
        namespace,
        labelSelector: `${LABELS.agent}=${agentId},${LABELS.revision}`,
      });
    }
  } catch (err) {
    return kubeFailure(err, "list the Agent's revision objects", namespace);
  }
  const plan = retirementPlan(observed, tenantId, agentId, currentRevisionId);
  for (const item of plan) {
    try {
      await client.delete(item.kind, { name: item.name, namespace }, { uid: item.uid });
    } catch (err) {
      // Gone already, or replaced by another object (UID precondition): not ours to delete.
      if (isKubeError(err, "not-found") || isKubeError(err, "conflict")) continue;
      return kubeFailure(err, `retire ${item.kind} ${item.name}`, namespace);
    }
  }
  return null;
}
