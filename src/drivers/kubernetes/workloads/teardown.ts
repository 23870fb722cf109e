/**
 * Final teardown of an Agent (drivers.md §4): the gateway and every other object of the Agent
 * first, then — once they are gone — the private gateway state claim and the shared workspace
 * claim, each read by name, verified to carry this Agent's exact markers, and deleted with
 * the UID just read. A claim whose markers differ is refused (never deleted); a claim replaced
 * between the read and the delete is not deleted (the API server refuses the precondition).
 */
import {
  LABELS,
  claimTeardownStep,
  teardownPlan,
  TEARDOWN_ORDER,
  workloadMarkers,
  agentObjectNames,
  workloadNotDone,
} from "../../../domain/index.js";
import type {
  HasMetadata,
  ObservedByKind,
  TeardownAgentResult,
  WorkloadNotDone,
} from "../../../domain/index.js";
import type { AgentTeardownInput } from "../../workloads.js";
import { isKubeError } from "../client/index.js";
import { isNotDone, kubeFailure, resolveForWorkload } from "./context.js";
import type { KubernetesWorkloadDriverOptions } from "./context.js";

export async function teardownAgent(
  opts: KubernetesWorkloadDriverOptions,
  input: AgentTeardownInput,
): Promise<TeardownAgentResult> {
  const bound = await resolveForWorkload(opts, input.tenant);
  // A managed namespace that was never created holds nothing of the Agent.
  if ("missing" in bound) return { outcome: "deleted" };
  if (isNotDone(bound)) return bound;
  const ns = bound.name;
  const objects = await removeObjects(opts, ns, input);
  if (objects !== null) return objects;
  const claims = await removeClaims(opts, ns, input);
  return claims ?? { outcome: "deleted" };
}

async function listAgentObjects(
  opts: KubernetesWorkloadDriverOptions,
  namespace: string,
  agentId: string,
): Promise<ObservedByKind> {
  const observed: Record<string, HasMetadata[]> = {};
  for (const kind of TEARDOWN_ORDER) {
    observed[kind] = await opts.client.list(kind, {
      namespace,
      labelSelector: `${LABELS.agent}=${agentId}`,
    });
  }
  return observed;
}

async function removeObjects(
  opts: KubernetesWorkloadDriverOptions,
  namespace: string,
  input: AgentTeardownInput,
): Promise<WorkloadNotDone | null> {
  const tenantId = input.tenant.tenantId;
  let plan;
  try {
    plan = teardownPlan(
      await listAgentObjects(opts, namespace, input.agentId),
      tenantId,
      input.agentId,
    );
  } catch (err) {
    return kubeFailure(err, "list the Agent's objects", namespace);
  }
  for (const item of plan) {
    try {
      await opts.client.delete(item.kind, { name: item.name, namespace }, { uid: item.uid });
    } catch (err) {
      if (isKubeError(err, "not-found")) continue;
      if (isKubeError(err, "conflict")) {
        return workloadNotDone(
          "KUBERNETES_CONFLICT",
          `${item.kind} ${item.name} was replaced before it could be deleted; retrying`,
        );
      }
      return kubeFailure(err, `delete ${item.kind} ${item.name}`, namespace);
    }
  }
  try {
    const left = teardownPlan(
      await listAgentObjects(opts, namespace, input.agentId),
      tenantId,
      input.agentId,
    ).filter((o) => plan.some((p) => p.uid === o.uid));
    if (left.length > 0) {
      return workloadNotDone(
        "WORKLOAD_DELETION_PENDING",
        `${left.length} of the Agent's objects are still being deleted; the claims follow once they are gone`,
      );
    }
  } catch (err) {
    return kubeFailure(err, "re-list the Agent's objects", namespace);
  }
  return null;
}

async function removeClaims(
  opts: KubernetesWorkloadDriverOptions,
  namespace: string,
  input: AgentTeardownInput,
): Promise<WorkloadNotDone | null> {
  const names = agentObjectNames(input.agentId);
  const markers = workloadMarkers(input.tenant.tenantId, input.agentId, { scope: "agent" });
  let pending = false;
  for (const name of [names.gatewayState, names.workspace]) {
    const ref = { name, namespace };
    try {
      const observed = await opts.client.find("PersistentVolumeClaim", ref);
      const step = claimTeardownStep(observed ?? null, { name, markers });
      if ("outcome" in step) return step;
      if (step.step === "absent") continue;
      if (observed?.metadata.deletionTimestamp !== undefined) {
        pending = true;
        continue;
      }
      await opts.beforeClaimDelete?.(ref);
      try {
        await opts.client.delete("PersistentVolumeClaim", ref, { uid: step.uid });
      } catch (err) {
        if (isKubeError(err, "not-found")) continue;
        if (isKubeError(err, "conflict")) {
          return workloadNotDone(
            "KUBERNETES_CONFLICT",
            `PersistentVolumeClaim ${name} changed between its verification and its deletion; it was not deleted`,
          );
        }
        throw err;
      }
      const after = await opts.client.find("PersistentVolumeClaim", ref);
      if (after?.metadata.uid === step.uid) pending = true;
    } catch (err) {
      return kubeFailure(err, `delete the claim ${name}`, namespace);
    }
  }
  return pending
    ? workloadNotDone("WORKLOAD_DELETION_PENDING", "the Agent's claims are still being deleted")
    : null;
}
