/** Builders and readers of the tenant's owned objects, shared by the owned-objects suites. */
import {
  desiredOwnedObjects,
  tenantOwnershipMarkers,
  type LimitRange,
  type NetworkPolicy,
  type OwnedObject,
  type ResourceQuota,
} from "../../../src/domain/index.js";
import { TENANT, validSettings } from "./fixtures.js";

export const NS = "oce-89d99db2f971e50";
export const MARKERS = tenantOwnershipMarkers(TENANT);

export function desired(overrides: Record<string, unknown> = {}): readonly OwnedObject[] {
  return desiredOwnedObjects(TENANT, NS, validSettings(overrides));
}

export function find(objects: readonly OwnedObject[], name: string): OwnedObject {
  const found = objects.find((object) => object.metadata.name === name);
  if (found === undefined) throw new Error(`no ${name}`);
  return found;
}

export function quotaOf(objects: readonly OwnedObject[]): ResourceQuota {
  const found = find(objects, "openclaw-quota");
  if (found.kind !== "ResourceQuota") throw new Error("not a ResourceQuota");
  return found;
}

export function limitsOf(objects: readonly OwnedObject[]): LimitRange {
  const found = find(objects, "openclaw-limits");
  if (found.kind !== "LimitRange") throw new Error("not a LimitRange");
  return found;
}

export function policyOf(objects: readonly OwnedObject[], name: string): NetworkPolicy {
  const found = find(objects, name);
  if (found.kind !== "NetworkPolicy") throw new Error("not a NetworkPolicy");
  return found;
}

/** What the API server returns for a desired object: uid, resourceVersion, extra metadata. */
export function asObserved<T extends OwnedObject>(object: T): T {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      uid: `uid-${object.metadata.name ?? ""}`,
      resourceVersion: "99",
      labels: { ...object.metadata.labels, "extra/label": "x" },
      annotations: { ...object.metadata.annotations, "kubectl.kubernetes.io/last-applied": "{}" },
    },
  };
}
