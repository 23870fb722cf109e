/**
 * Which of an Agent's objects a pass removes (drivers.md §4):
 *
 * - **retirement** after a revision became active: only objects scoped to *another* revision
 *   of this Agent (its harness Deployment, ConfigMaps and Secrets) — never the gateway, its
 *   Service or its claims, which are Agent-scoped and carry no revision marker;
 * - **teardown** of the Agent: every non-claim object carrying this Agent's exact markers,
 *   workloads first (so nothing runs against a config or secret that is already gone). The
 *   claims follow separately, by name (`workload-claims.ts`).
 *
 * Only objects whose every expected marker has the exact value are included; every delete
 * carries the object's UID.
 */
import type { HasMetadata } from "../placement/k8s-objects.js";
import { hasMarkers, LABELS, metadataValue } from "../placement/markers.js";
import { workloadMarkers, type WorkloadKind } from "./names.js";

/** One guarded delete. */
export interface WorkloadDeletion {
  readonly kind: WorkloadKind;
  readonly name: string;
  readonly uid: string;
}

/** Objects listed per kind by the Agent label. */
export type ObservedByKind = Partial<Readonly<Record<WorkloadKind, readonly HasMetadata[]>>>;

/** Teardown order of the non-claim kinds. */
export const TEARDOWN_ORDER = [
  "Deployment",
  "Service",
  "ConfigMap",
  "Secret",
  "ServiceAccount",
  "NetworkPolicy",
] as const satisfies readonly WorkloadKind[];

function sortedByName(items: WorkloadDeletion[]): WorkloadDeletion[] {
  return items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The revision-scoped objects of this Agent that belong to a revision other than
 * `currentRevisionId`, with exactly that revision's markers.
 */
export function retirementPlan(
  observed: ObservedByKind,
  tenantId: string,
  agentId: string,
  currentRevisionId: string,
): readonly WorkloadDeletion[] {
  const out: WorkloadDeletion[] = [];
  for (const [kind, objects] of Object.entries(observed) as [WorkloadKind, HasMetadata[]][]) {
    for (const o of objects) {
      const revisionId = metadataValue(o.metadata, "label", LABELS.revision);
      const { name, uid } = o.metadata ?? {};
      if (revisionId === undefined || revisionId === currentRevisionId) continue;
      if (name === undefined || uid === undefined) continue;
      const markers = workloadMarkers(tenantId, agentId, { scope: "revision", revisionId });
      if (hasMarkers(o.metadata, markers)) out.push({ kind, name, uid });
    }
  }
  return sortedByName(out);
}

/** Every non-claim object with this Agent's exact markers, in {@link TEARDOWN_ORDER}. */
export function teardownPlan(
  observed: ObservedByKind,
  tenantId: string,
  agentId: string,
): readonly WorkloadDeletion[] {
  const markers = workloadMarkers(tenantId, agentId, { scope: "agent" });
  return TEARDOWN_ORDER.flatMap((kind) =>
    sortedByName(
      (observed[kind] ?? []).flatMap((o) => {
        const { name, uid } = o.metadata ?? {};
        return name !== undefined && uid !== undefined && hasMarkers(o.metadata, markers)
          ? [{ kind, name, uid }]
          : [];
      }),
    ),
  );
}
