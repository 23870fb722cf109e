/** A Namespace record as the API shows it (control-plane.md §1). */
import type { NamespaceId } from "../../domain/placement/ids.js";
import { currentManagedName } from "../../domain/placement/naming.js";
import type { NamespaceView } from "../../contract/namespaces.js";
import type { NamespaceRecord } from "../../store/namespaces.js";

/** A Namespace as the use cases return it, before {@link presentNamespace}. */
export type { NamespaceRecord };

// `placement.kubernetesNamespace` is the bound name once the worker recorded it; before that,
// the selected namespace (external) or the derived current managed name, where the worker
// will create it — so operators always see where a tenant lives or will live.
function plannedKubernetesNamespace(record: NamespaceRecord): string | null {
  if (record.kubernetesNamespace !== null) return record.kubernetesNamespace;
  switch (record.placementMode) {
    case "external":
      return record.existingNamespace;
    case "managed":
    case "preprovisioned":
      return currentManagedName(record.id);
  }
}

/** The response shape of one Namespace. */
export function presentNamespace(
  record: NamespaceRecord,
  preprovisionedNamespaceId?: NamespaceId,
): NamespaceView {
  return {
    id: record.id,
    name: record.name,
    ...(record.existingNamespace === null ? {} : { existingNamespace: record.existingNamespace }),
    status: record.status,
    placement: {
      mode: record.id === preprovisionedNamespaceId ? "preprovisioned" : record.placementMode,
      kubernetesNamespace: plannedKubernetesNamespace(record),
      uid: record.kubernetesUid,
      observedUid: record.observedKubernetesUid,
    },
    statusReason:
      record.statusCode === null || record.statusReason === null || record.statusSince === null
        ? null
        : {
            code: record.statusCode,
            message: record.statusReason,
            since: record.statusSince.toISOString(),
          },
    lastReconciledAt: record.lastReconciledAt?.toISOString() ?? null,
    createdAt: record.createdAt.toISOString(),
  };
}
