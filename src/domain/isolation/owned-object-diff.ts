/**
 * Should an owned object be written? (placement.md §5 write discipline.)
 *
 * A pass over an unchanged, ready namespace must issue no write, so the comparison is
 * semantic: after the API server's defaulting and canonicalisation the observed object is
 * equal to the desired one even though its JSON differs. Labels and annotations are compared
 * only on the keys OCC sets; anything else an operator or controller added is ignored.
 */
import type {
  LimitRange,
  LimitRangeItem,
  OwnedObject,
  ResourceQuota,
  StringMap,
} from "../placement/k8s-objects.js";
import { hasMarkers, isOwnedBy } from "../placement/markers.js";
import { decideWrite, type WriteDecision } from "../placement/write-decision.js";
import { networkPolicySpecsEquivalent } from "./network-policy-equivalence.js";
import { notDone, type NotDone } from "../placement/outcomes.js";
import { quantityStringsEqual } from "../input/quantity.js";

/**
 * True when `observed` differs from `desired` in anything OCC controls: its marker labels and
 * annotations, or its spec compared per kind (quantities by value, NetworkPolicies by
 * {@link networkPolicySpecsEquivalent}). Objects of different kinds always differ.
 */
export function needsWrite(observed: OwnedObject, desired: OwnedObject): boolean {
  const markers = {
    labels: desired.metadata.labels ?? {},
    annotations: desired.metadata.annotations ?? {},
  };
  if (!hasMarkers(observed.metadata, markers)) return true;
  if (observed.kind === "ResourceQuota" && desired.kind === "ResourceQuota") {
    return !resourceQuotaSpecsEqual(observed, desired);
  }
  if (observed.kind === "LimitRange" && desired.kind === "LimitRange") {
    return !limitRangeSpecsEqual(observed, desired);
  }
  if (observed.kind === "NetworkPolicy" && desired.kind === "NetworkPolicy") {
    return !networkPolicySpecsEquivalent(observed.spec, desired.spec);
  }
  return true;
}

/**
 * Decides the write for one desired object given what a read returned (`null`: not found).
 *
 * - missing → create;
 * - present without this tenant's exact markers → stop with `KUBERNETES_OWNERSHIP_CONFLICT`:
 *   OCC never overwrites an object it does not own;
 * - ours but being deleted → stop, pending: it will be recreated once it is gone;
 * - ours and semantically equal → none (no write);
 * - ours and different → update, guarded by the observed `resourceVersion`.
 */
export function ownedObjectAction(
  observed: OwnedObject | null,
  desired: OwnedObject,
  tenantId: string,
): WriteDecision<NotDone> {
  const label = `${desired.kind} ${desired.metadata.name ?? ""}`;
  // The stops are getters: a reason is built (and sanitized) only when a pass stops on it, not
  // for each of the five objects of every pass.
  return decideWrite(observed, {
    owned: (o) => isOwnedBy(o.metadata, tenantId),
    get notOwned() {
      return notDone(
        "KUBERNETES_OWNERSHIP_CONFLICT",
        `${label} exists in the namespace without this tenant's ownership markers; OCC never overwrites an object it does not own — remove or rename it`,
      );
    },
    get terminating() {
      return notDone(
        "KUBERNETES_NAMESPACE_PENDING",
        `${label} is being deleted; it will be recreated`,
      );
    },
    differs: (o) => needsWrite(o, desired),
  });
}

function resourceQuotaSpecsEqual(observed: ResourceQuota, desired: ResourceQuota): boolean {
  return (
    quantityMapsEqual(observed.spec?.hard, desired.spec?.hard) &&
    JSON.stringify(observed.spec?.scopes ?? []) === JSON.stringify(desired.spec?.scopes ?? []) &&
    JSON.stringify(observed.spec?.scopeSelector ?? null) ===
      JSON.stringify(desired.spec?.scopeSelector ?? null)
  );
}

function limitRangeSpecsEqual(observed: LimitRange, desired: LimitRange): boolean {
  const left = (observed.spec?.limits ?? []).map(defaultLimitRangeItem);
  const right = (desired.spec?.limits ?? []).map(defaultLimitRangeItem);
  return (
    left.length === right.length &&
    left.every((item, index) => {
      const other = right[index];
      return (
        other !== undefined &&
        item.type === other.type &&
        quantityMapsEqual(item.default, other.default) &&
        quantityMapsEqual(item.defaultRequest, other.defaultRequest) &&
        quantityMapsEqual(item.max, other.max) &&
        quantityMapsEqual(item.min, other.min) &&
        quantityMapsEqual(item.maxLimitRequestRatio, other.maxLimitRequestRatio)
      );
    })
  );
}

/**
 * The API server's defaulting of a `Container` item: a missing default limit takes `max`,
 * then a missing default request takes the default limit, then `min`.
 */
function defaultLimitRangeItem(item: LimitRangeItem): LimitRangeItem {
  if (item.type !== "Container") return item;
  const limit = { ...(item.max ?? {}), ...(item.default ?? {}) };
  const request = { ...(item.min ?? {}), ...limit, ...(item.defaultRequest ?? {}) };
  return { ...item, default: limit, defaultRequest: request };
}

/** Same keys, and each value equal as a quantity; an absent map equals an empty one. */
function quantityMapsEqual(a: StringMap | undefined, b: StringMap | undefined): boolean {
  const left = Object.entries(a ?? {});
  const right = b ?? {};
  return (
    left.length === Object.keys(right).length &&
    left.every(
      ([key, value]) =>
        Object.prototype.hasOwnProperty.call(right, key) &&
        quantityStringsEqual(value, right[key] ?? ""),
    )
  );
}
