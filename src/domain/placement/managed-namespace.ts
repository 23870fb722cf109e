/**
 * Decisions of managed placement (placement.md §4.1): the namespace OCC creates, and whether
 * an existing namespace of the managed name may be used, needs a marker update, or is not
 * ready yet.
 */
import type { GatewayRouting } from "../isolation/compute-settings.js";
import type { K8sNamespace, ObjectMeta } from "./k8s-objects.js";
import { isTerminating } from "./k8s-objects.js";
import { ANNOTATIONS, LIFECYCLE, managedNamespaceMarkers } from "./markers.js";
import { metadataPatchFor, observedUid, type MetadataPatch } from "./metadata-patch.js";
import {
  bindingStateOf,
  foreignMarkerViolations,
  lifecycleOf,
  managerLabelViolations,
  partialMarkerViolation,
} from "./namespace-checks.js";
import { currentManagedName, managedNameForm } from "./naming.js";
import { pending, type Pending } from "./outcomes.js";
import { nonEmpty, violation, type Violation, type Violations } from "./violations.js";

/**
 * The namespace OCC creates for a managed tenant: always the current name `oce-<hash15>`
 * (never the previous form), with every managed marker and no lifecycle annotation.
 */
export function desiredManagedNamespace(
  tenantId: string,
  routing: GatewayRouting | null,
): K8sNamespace {
  const markers = managedNamespaceMarkers(tenantId, routing);
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name: currentManagedName(tenantId),
      labels: markers.labels,
      annotations: markers.annotations,
    },
  };
}

/** Result of verifying an existing namespace found under a managed name. */
export type ManagedNamespaceVerdict =
  | {
      readonly verdict: "usable";
      readonly uid: string;
      /** Managed markers to (re)write — e.g. a newly configured gateway membership — or `null`. */
      readonly patch: MetadataPatch | null;
    }
  | { readonly verdict: "pending"; readonly result: Pending }
  | { readonly verdict: "refused"; readonly violations: Violations };

/**
 * Verifies a namespace that exists under this tenant's managed name (§3, §4.1 step 2). It is
 * OCC's only if all of these hold; otherwise it is refused permanently and never taken over:
 * - both tenant markers hold this ID (none → unowned namespace; one → partial; another value
 *   → foreign), and the gateway-namespace label is absent or this ID;
 * - no lifecycle annotation (an `external` one means it was never explicitly selected);
 * - label `app.kubernetes.io/managed-by=openclaw-enterprise`;
 * - its name is the current or the previous managed form of this ID.
 * Then: terminating or not `Active` → pending (a managed namespace being deleted is recreated
 * once it is gone — unless it is `pinned`: one OCC recorded is recreated only on an
 * administrator's retry, so the message says that instead); otherwise usable, with a patch when a managed marker (Pod Security,
 * gateway labels) is missing or different.
 *
 * `pinned`: the namespace's metadata.uid is the one OCC recorded when it created it
 * (lifecycle.md §3), so it is OCC's by identity; tenant markers that were removed (none or one
 * left) are restored by the patch rather than refused. A foreign marker is still refused.
 */
export function verifyManagedNamespace(
  namespace: K8sNamespace,
  tenantId: string,
  routing: GatewayRouting | null,
  pinned = false,
): ManagedNamespaceVerdict {
  const metadata = namespace.metadata;
  const violations = nonEmpty([
    ...ownershipViolations(metadata, tenantId, pinned),
    ...managerLabelViolations(metadata),
    ...nameViolations(metadata, tenantId),
  ]);
  if (violations !== null) return { verdict: "refused", violations };

  if (isTerminating(namespace)) {
    return {
      verdict: "pending",
      result: managedNamespacePending(
        pinned
          ? "the managed namespace is terminating; once it is gone OCC does not recreate it by itself (its data went with it) — an administrator's retry recreates it"
          : "the managed namespace is terminating; it will be recreated once it is gone",
      ),
    };
  }
  if (namespace.status?.phase !== "Active") {
    return {
      verdict: "pending",
      result: managedNamespacePending("the managed namespace is not Active yet"),
    };
  }
  const uid = observedUid(namespace);
  if (!uid.ok) return { verdict: "refused", violations: [uid.error] };
  const patch = metadataPatchFor(namespace, managedNamespaceMarkers(tenantId, routing));
  if (!patch.ok) return { verdict: "refused", violations: [patch.error] };
  return { verdict: "usable", uid: uid.value, patch: patch.value };
}

/**
 * The pending result of §4.1 step 3 (namespace not yet present, not Active, or terminating):
 * not a failure, retried without spending an attempt.
 */
export function managedNamespacePending(reason: string): Pending {
  return pending("KUBERNETES_NAMESPACE_PENDING", reason);
}

function ownershipViolations(
  metadata: ObjectMeta | undefined,
  tenantId: string,
  pinned: boolean,
): Violation[] {
  const found: Violation[] = [];
  switch (bindingStateOf(metadata, tenantId)) {
    case "foreign":
      found.push(...foreignMarkerViolations(metadata, tenantId));
      break;
    case "partial":
      if (!pinned) found.push(partialMarkerViolation(metadata));
      break;
    case "unbound":
      if (pinned) break;
      found.push(
        violation(
          "tenant-markers",
          "KUBERNETES_OWNERSHIP_CONFLICT",
          "a Kubernetes namespace with this tenant's managed name exists without the tenant markers; OCC never takes over an unowned namespace",
        ),
      );
      break;
    case "bound":
      break;
  }
  const lifecycle = lifecycleOf(metadata);
  if (lifecycle === LIFECYCLE.external) {
    found.push(
      violation(
        "explicit-selection",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        "the Kubernetes namespace claiming this tenant is external but was not explicitly selected; OCC never adopts implicitly",
        ANNOTATIONS.lifecycle,
      ),
    );
  } else if (lifecycle !== undefined) {
    found.push(
      violation(
        "lifecycle",
        "KUBERNETES_OWNERSHIP_CONFLICT",
        `annotation ${ANNOTATIONS.lifecycle} must be absent on a managed namespace`,
        ANNOTATIONS.lifecycle,
      ),
    );
  }
  return found;
}

function nameViolations(metadata: ObjectMeta | undefined, tenantId: string): Violation[] {
  return managedNameForm(metadata?.name ?? "", tenantId) === null
    ? [
        violation(
          "managed-name",
          "KUBERNETES_OWNERSHIP_CONFLICT",
          "the namespace claiming this tenant has neither the current (oce-<hash15>) nor the previous (oce-<slug>-<hash12>) managed name; OCC never falls back to another name",
        ),
      ]
    : [];
}
