/**
 * Requirement checks on an observed Kubernetes namespace, shared by the external, managed,
 * resolution and deletion decisions.
 *
 * Each check returns violations; none reads or echoes a foreign value — a message names the
 * key at fault and the fix.
 */
import type { K8sNamespace, ObjectMeta } from "./k8s-objects.js";
import { isTerminating } from "./k8s-objects.js";
import {
  ANNOTATIONS,
  LABELS,
  MARKER_VALUES,
  POD_SECURITY_LABELS,
  TENANT_IDENTITY_KEYS,
  metadataValue,
} from "./markers.js";
import { violation, type Violation } from "./violations.js";

/**
 * Binding of a namespace to this tenant, from the tenant label and annotation:
 * - `foreign`: the tenant label, tenant annotation or gateway-namespace label holds another
 *   value (another tenant claims it);
 * - `bound`: both tenant markers hold this ID;
 * - `partial`: exactly one tenant marker is present (with this ID);
 * - `unbound`: neither tenant marker is present.
 */
export type BindingState = "unbound" | "partial" | "bound" | "foreign";

/** The binding state of `metadata` for `tenantId`. */
export function bindingStateOf(metadata: ObjectMeta | undefined, tenantId: string): BindingState {
  if (foreignMarkerViolations(metadata, tenantId).length > 0) return "foreign";
  const label = metadataValue(metadata, "label", LABELS.namespace);
  const annotation = metadataValue(metadata, "annotation", ANNOTATIONS.namespaceId);
  if (label !== undefined && annotation !== undefined) return "bound";
  if (label !== undefined || annotation !== undefined) return "partial";
  return "unbound";
}

/** One violation per identity key whose value is present and not this tenant's ID. */
export function foreignMarkerViolations(
  metadata: ObjectMeta | undefined,
  tenantId: string,
): Violation[] {
  return TENANT_IDENTITY_KEYS.flatMap(({ kind, key }) => {
    const value = metadataValue(metadata, kind, key);
    return value === undefined || value === tenantId
      ? []
      : [
          violation(
            "foreign-marker",
            "KUBERNETES_OWNERSHIP_CONFLICT",
            `${kind} ${key} names another platform Namespace; only an operator who deliberately removes the old tenant markers can release it`,
            key,
          ),
        ];
  });
}

/** The violation of a partial binding: names the tenant marker that is missing. */
export function partialMarkerViolation(metadata: ObjectMeta | undefined): Violation {
  const labelMissing = metadataValue(metadata, "label", LABELS.namespace) === undefined;
  const key = labelMissing ? LABELS.namespace : ANNOTATIONS.namespaceId;
  return violation(
    "partial-marker",
    "KUBERNETES_OWNERSHIP_CONFLICT",
    `only one tenant marker is present: ${labelMissing ? "label" : "annotation"} ${key} is missing; the label and annotation are always set together`,
    key,
  );
}

/** One violation per Pod Security label that is not `restricted`. */
export function podSecurityViolations(metadata: ObjectMeta | undefined): Violation[] {
  return POD_SECURITY_LABELS.flatMap((key) =>
    metadataValue(metadata, "label", key) === MARKER_VALUES.podSecurityLevel
      ? []
      : [
          violation(
            "pod-security",
            "KUBERNETES_OWNERSHIP_CONFLICT",
            `label ${key} must be "restricted"; set all three pod-security.kubernetes.io labels to restricted`,
            key,
          ),
        ],
  );
}

/** A violation when the manager label is not exactly `openclaw-enterprise`. */
export function managerLabelViolations(metadata: ObjectMeta | undefined): Violation[] {
  return metadataValue(metadata, "label", LABELS.managedBy) === MARKER_VALUES.managedBy
    ? []
    : [
        violation(
          "manager-label",
          "KUBERNETES_OWNERSHIP_CONFLICT",
          `label ${LABELS.managedBy} must be "${MARKER_VALUES.managedBy}" on a managed namespace`,
          LABELS.managedBy,
        ),
      ];
}

/**
 * Violations of "Active with no deletionTimestamp" for namespaces OCC does not own the
 * lifecycle of (external, preprovisioned): there, inactivity is a permanent failure.
 */
export function inactiveViolations(namespace: K8sNamespace): Violation[] {
  if (isTerminating(namespace)) {
    return [
      violation(
        "terminating",
        "KUBERNETES_NAMESPACE_INACTIVE",
        "the namespace is terminating (deletionTimestamp is set); select a namespace that is not being deleted",
      ),
    ];
  }
  if (namespace.status?.phase !== "Active") {
    return [
      violation(
        "active",
        "KUBERNETES_NAMESPACE_INACTIVE",
        "the namespace is not Active; wait until it is Active or select another namespace",
      ),
    ];
  }
  return [];
}

/** The lifecycle annotation's value, `undefined` when absent. */
export function lifecycleOf(metadata: ObjectMeta | undefined): string | undefined {
  return metadataValue(metadata, "annotation", ANNOTATIONS.lifecycle);
}
