/**
 * The object operations the Configuration and Secret Drivers share, over ConfigMaps and
 * Secrets alike (one path per verb, no per-kind branches). Each operation is pinned: the
 * object lives in the namespace resolved just now, which must be the one recorded with the
 * object (name and UID); reads verify the markers (and what the caller adds) and never repair;
 * updates carry the recorded `resourceVersion`; deletes carry the recorded UID.
 */
import type { ObjectMeta } from "../../../domain/placement/k8s-objects.js";
import type { Markers } from "../../../domain/placement/markers.js";
import { ownedObjectMismatch } from "../../../domain/tenant/resources.js";
import { isKubeError, type DataObject, type ObjectClient } from "../client/index.js";
import { TenantObjectError, type BoundNamespace, type PinnedObject } from "../../tenant-objects.js";
import { tenantKubeFailure } from "./failures.js";

/** The kinds these operations write. */
export type TenantObjectKind = "ConfigMap" | "Secret";

const LABEL = { ConfigMap: "ConfigMap", Secret: "Secret" } as const;

/** Refuses unless `bound` is where `pinned` was written. */
export function requireSameNamespace(bound: BoundNamespace, pinned: PinnedObject): void {
  if (bound.name !== pinned.kubernetesNamespace || bound.uid !== pinned.namespaceUid) {
    throw new TenantObjectError(
      "ownership",
      "The tenant's Kubernetes namespace is no longer the one this object was written to; OCC will not follow it.",
    );
  }
}

/** Creates `obj` in `bound`; an existing object of that name is never taken over. */
export async function createPinned(
  client: ObjectClient,
  kind: TenantObjectKind,
  bound: BoundNamespace,
  obj: DataObject & { readonly metadata: ObjectMeta & { readonly name: string } },
): Promise<PinnedObject> {
  let created: DataObject;
  try {
    created = await client.create(kind, {
      ...obj,
      metadata: { ...obj.metadata, namespace: bound.name },
    });
  } catch (err) {
    if (isKubeError(err, "conflict")) {
      throw new TenantObjectError(
        "ownership",
        `A ${LABEL[kind]} of the name OCC derives already exists in ${bound.name}; OCC never takes one over.`,
        { cause: err },
      );
    }
    tenantKubeFailure(err, `create ${kind}s`, bound.name);
  }
  return pinnedOf(created, bound);
}

/** Reads the pinned object and verifies name, UID and `markers`; absent → `ownership`. */
export async function readPinned(
  client: ObjectClient,
  kind: TenantObjectKind,
  bound: BoundNamespace,
  pinned: PinnedObject,
  markers: Markers,
): Promise<DataObject> {
  requireSameNamespace(bound, pinned);
  let found: DataObject | undefined;
  try {
    found = await client.find(kind, {
      name: pinned.objectName,
      namespace: bound.name,
    });
  } catch (err) {
    tenantKubeFailure(err, `read ${kind}s`, bound.name);
  }
  if (found === undefined) {
    throw new TenantObjectError("ownership", `The ${LABEL[kind]} OCC wrote no longer exists.`);
  }
  const mismatch = ownedObjectMismatch(found.metadata, {
    name: pinned.objectName,
    markers,
    uid: pinned.objectUid,
  });
  if (mismatch !== null) {
    throw new TenantObjectError(
      "ownership",
      `The ${LABEL[kind]} OCC wrote was changed: ${mismatch}.`,
    );
  }
  return found;
}

/**
 * Merge-patches the pinned object, with its recorded `resourceVersion` as precondition (a
 * change made meanwhile → 409 → `ownership`). Returns the new pin.
 */
export async function patchPinned(
  client: ObjectClient,
  kind: TenantObjectKind,
  bound: BoundNamespace,
  pinned: PinnedObject,
  patch: { readonly metadata: ObjectMeta; readonly data?: Readonly<Record<string, string>> },
): Promise<PinnedObject> {
  requireSameNamespace(bound, pinned);
  let patched: DataObject;
  try {
    patched = await client.patch(
      kind,
      { name: pinned.objectName, namespace: bound.name },
      { ...patch, metadata: { ...patch.metadata, resourceVersion: pinned.resourceVersion } },
      { type: "merge" },
    );
  } catch (err) {
    if (isKubeError(err, "conflict") || isKubeError(err, "not-found")) {
      throw new TenantObjectError(
        "ownership",
        `The ${LABEL[kind]} OCC wrote was changed or removed since it was verified.`,
        { cause: err },
      );
    }
    tenantKubeFailure(err, `update ${kind}s`, bound.name);
  }
  return pinnedOf(patched, bound);
}

/** Deletes the pinned object with a UID precondition; already absent counts as deleted. */
export async function deletePinned(
  client: ObjectClient,
  kind: TenantObjectKind,
  namespace: string,
  pinned: Pick<PinnedObject, "objectName" | "objectUid">,
): Promise<void> {
  try {
    await client.delete(kind, { name: pinned.objectName, namespace }, { uid: pinned.objectUid });
  } catch (err) {
    if (isKubeError(err, "not-found")) return;
    if (isKubeError(err, "conflict")) {
      throw new TenantObjectError(
        "ownership",
        `The ${LABEL[kind]} under OCC's name is another object; OCC will not delete it.`,
        { cause: err },
      );
    }
    tenantKubeFailure(err, `delete ${kind}s`, namespace);
  }
}

function pinnedOf(obj: DataObject, bound: BoundNamespace): PinnedObject {
  const name = obj.metadata?.name;
  const uid = obj.metadata?.uid;
  const resourceVersion = obj.metadata?.resourceVersion;
  if (name === undefined || uid === undefined || resourceVersion === undefined) {
    throw new Error("the API server returned an object without name, uid or resourceVersion");
  }
  return {
    kubernetesNamespace: bound.name,
    namespaceUid: bound.uid,
    objectName: name,
    objectUid: uid,
    resourceVersion,
  };
}
