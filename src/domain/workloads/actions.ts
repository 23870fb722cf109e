/**
 * Should one of an Agent's objects be written? (drivers.md §4, with the write discipline of
 * placement.md §5.) The desired object carries a spec-hash annotation over everything OCC
 * renders; the observed object is rewritten only when that hash (or a marker) differs, so the
 * comparison never has to second-guess the API server's defaulting, and a pass over an
 * unchanged Agent issues no write.
 */
import type { HasMetadata } from "../placement/k8s-objects.js";
import { hasMarkers, metadataValue } from "../placement/markers.js";
import { decideWrite, type WriteDecision } from "../placement/write-decision.js";
import { WORKLOAD_KEYS, workloadMarkers } from "./names.js";
import type { DesiredWorkloadObject } from "./inputs.js";
import { workloadNotDone, type WorkloadNotDone } from "./outcomes.js";

/**
 * - absent → create;
 * - present without the exact markers of its scope → stop (`KUBERNETES_OWNERSHIP_CONFLICT`):
 *   never overwritten;
 * - terminating → stop, pending;
 * - same spec hash (or a create-only object) → none;
 * - otherwise update, guarded by the observed `resourceVersion`.
 */
export function workloadObjectAction(
  observed: HasMetadata | null,
  desired: DesiredWorkloadObject,
  tenantId: string,
  agentId: string,
): WriteDecision<WorkloadNotDone> {
  const label = `${desired.object.kind} ${desired.object.metadata.name}`;
  const want = desired.object.metadata.annotations[WORKLOAD_KEYS.specHash];
  return decideWrite(observed, {
    owned: (o) => hasMarkers(o.metadata, workloadMarkers(tenantId, agentId, desired.scope)),
    notOwned: workloadNotDone(
      "KUBERNETES_OWNERSHIP_CONFLICT",
      `${label} exists without this Agent's exact ownership markers; OCC never overwrites an object it does not own`,
    ),
    terminating: workloadNotDone("WORKLOAD_DELETION_PENDING", `${label} is being deleted`),
    differs: (o) =>
      !desired.createOnly &&
      want !== metadataValue(o.metadata, "annotation", WORKLOAD_KEYS.specHash),
  });
}

/** A Deployment's rollout as its status reports it (the fields read here). */
export interface DeploymentState extends HasMetadata {
  readonly metadata?: HasMetadata["metadata"] & { readonly generation?: number | undefined };
  readonly status?:
    | {
        readonly observedGeneration?: number | undefined;
        readonly availableReplicas?: number | undefined;
        readonly updatedReplicas?: number | undefined;
        readonly conditions?:
          readonly { readonly type?: string; readonly status?: string }[] | undefined;
      }
    | undefined;
}

/**
 * True when the gateway Deployment serves `revisionId` and reports it available: its
 * template points at the revision, the controller observed the current generation, at least
 * one updated replica is available, and the `Available` condition is `True`.
 */
export function gatewayServes(observed: DeploymentState | null, revisionId: string): boolean {
  if (observed === null) return false;
  const serving = metadataValue(observed.metadata, "annotation", WORKLOAD_KEYS.activeRevision);
  const status = observed.status;
  const generation = observed.metadata?.generation ?? 0;
  return (
    serving === revisionId &&
    (status?.observedGeneration ?? -1) >= generation &&
    (status?.availableReplicas ?? 0) >= 1 &&
    (status?.updatedReplicas ?? 0) >= 1 &&
    (status?.conditions ?? []).some((c) => c.type === "Available" && c.status === "True")
  );
}
