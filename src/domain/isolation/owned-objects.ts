/**
 * The objects OCC owns inside a tenant namespace (placement.md §5, §6): their names, the
 * desired set in reconcile order, and the order in which they are removed.
 *
 * The names are defined once here; both the reconcile list and the deletion plan derive from
 * them, so adding a policy cannot leave one of the two lists behind.
 */
import type { ComputeSettings } from "./compute-settings.js";
import type {
  HasMetadata,
  LimitRange,
  ObjectMeta,
  OwnedObject,
  OwnedObjectKind,
  ResourceQuota,
} from "../placement/k8s-objects.js";
import { isOwnedBy, tenantOwnershipMarkers } from "../placement/markers.js";
import {
  NETWORK_POLICY_NAMES,
  renderAllowDns,
  renderAllowGatewayIngress,
  renderDefaultDeny,
} from "./network-policies.js";

/** Names of every object OCC owns in a tenant namespace. */
export const OWNED_OBJECT_NAMES = {
  quota: "openclaw-quota",
  limits: "openclaw-limits",
  ...NETWORK_POLICY_NAMES,
} as const;

/**
 * The desired owned objects, in the §5 reconcile order: quota, limit range, `default-deny`,
 * `allow-dns`, `allow-gateway-ingress`. `default-deny` comes before the allow policies so that
 * a namespace is never open while only an allow policy exists. Every object carries the tenant
 * ownership markers. `settings` must come from `validateComputeSettings`.
 */
export function desiredOwnedObjects(
  tenantId: string,
  namespaceName: string,
  settings: ComputeSettings,
): readonly OwnedObject[] {
  const markers = tenantOwnershipMarkers(tenantId);
  const metadata: ObjectMeta = {
    namespace: namespaceName,
    labels: markers.labels,
    annotations: markers.annotations,
  };
  const quota: ResourceQuota = {
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: { ...metadata, name: OWNED_OBJECT_NAMES.quota },
    spec: { hard: settings.quota },
  };
  const limits: LimitRange = {
    apiVersion: "v1",
    kind: "LimitRange",
    metadata: { ...metadata, name: OWNED_OBJECT_NAMES.limits },
    spec: {
      limits: [
        {
          type: "Container",
          default: { cpu: settings.containerLimits.cpu, memory: settings.containerLimits.memory },
          defaultRequest: {
            cpu: settings.containerRequests.cpu,
            memory: settings.containerRequests.memory,
          },
        },
      ],
    },
  };
  return [
    quota,
    limits,
    renderDefaultDeny(metadata),
    renderAllowDns(metadata, settings),
    renderAllowGatewayIngress(metadata, settings),
  ];
}

/** One guarded delete: the object's kind, name and the UID it must still have. */
export interface OwnedObjectDeletion {
  readonly kind: OwnedObjectKind;
  readonly name: string;
  readonly uid: string;
}

/** What a namespace holds of the owned kinds, as listed before deletion. */
export interface ObservedOwnedKinds {
  readonly resourceQuotas: readonly HasMetadata[];
  readonly limitRanges: readonly HasMetadata[];
  readonly networkPolicies: readonly HasMetadata[];
}

/**
 * The deletes that remove OCC's objects from an external namespace (§6), in order:
 * `openclaw-quota`, `openclaw-limits`, `allow-dns`, `allow-gateway-ingress`, any other policy
 * owned by this tenant (by name), and `default-deny` last — so isolation never drops while an
 * allow policy exists.
 *
 * Only objects carrying this tenant's exact markers are included; everything the operator put
 * there stays. Objects without a `uid` are left out, because every delete must carry a UID
 * precondition (the API server always reports one).
 */
export function ownedObjectDeletionPlan(
  observed: ObservedOwnedKinds,
  tenantId: string,
): readonly OwnedObjectDeletion[] {
  const owned = (kind: OwnedObjectKind, objects: readonly HasMetadata[]): OwnedObjectDeletion[] =>
    objects.flatMap((object) => {
      const { name, uid } = object.metadata ?? {};
      return name !== undefined && uid !== undefined && isOwnedBy(object.metadata, tenantId)
        ? [{ kind, name, uid }]
        : [];
    });
  const policies = owned("NetworkPolicy", observed.networkPolicies);
  const named = (name: string): OwnedObjectDeletion[] => policies.filter((p) => p.name === name);
  const fixed: readonly string[] = [
    NETWORK_POLICY_NAMES.allowDns,
    NETWORK_POLICY_NAMES.allowGatewayIngress,
    NETWORK_POLICY_NAMES.defaultDeny,
  ];
  const others = policies
    .filter((p) => !fixed.includes(p.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [
    ...owned("ResourceQuota", observed.resourceQuotas).filter(
      (q) => q.name === OWNED_OBJECT_NAMES.quota,
    ),
    ...owned("LimitRange", observed.limitRanges).filter(
      (l) => l.name === OWNED_OBJECT_NAMES.limits,
    ),
    ...named(NETWORK_POLICY_NAMES.allowDns),
    ...named(NETWORK_POLICY_NAMES.allowGatewayIngress),
    ...others,
    ...named(NETWORK_POLICY_NAMES.defaultDeny),
  ];
}

/**
 * After a guarded delete and a re-read: `gone` when the object is missing or replaced by
 * another UID (ours is gone either way), `survives` when the same object is still there —
 * the caller then stops the pass and reports pending (§6).
 */
export function deletionProgress(
  reread: HasMetadata | null,
  deletedUid: string,
): "gone" | "survives" {
  return reread?.metadata?.uid === deletedUid ? "survives" : "gone";
}
