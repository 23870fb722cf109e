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
import {
  isKubeError,
  type DataObject,
  type KubeErrorCategory,
  type ObjectClient,
} from "../client/index.js";
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

/**
 * Runs `write` in `bound` and pins what it answered. A write the API server refused for one
 * of `refusedFor` (the object is not the one OCC expects) is an ownership refusal saying
 * `refusal`; any other failure is the driver's, named by `what`.
 */
async function pinnedWrite(
  bound: BoundNamespace,
  write: () => Promise<DataObject>,
  refused: {
    readonly refusedFor: readonly KubeErrorCategory[];
    readonly refusal: string;
    readonly what: string;
  },
): Promise<PinnedObject> {
  try {
    return pinnedOf(await write(), bound);
  } catch (err) {
    if (refused.refusedFor.some((reason) => isKubeError(err, reason))) {
      throw new TenantObjectError("ownership", refused.refusal, { cause: err });
    }
    tenantKubeFailure(err, refused.what, bound.name);
  }
}

/** Creates `obj` in `bound`; an existing object of that name is never taken over. */
export function createPinned(
  client: ObjectClient,
  kind: TenantObjectKind,
  bound: BoundNamespace,
  obj: DataObject & { readonly metadata: ObjectMeta & { readonly name: string } },
): Promise<PinnedObject> {
  const inBound = { ...obj, metadata: { ...obj.metadata, namespace: bound.name } };
  return pinnedWrite(bound, () => client.create(kind, inBound), {
    refusedFor: ["conflict"],
    refusal: `A ${LABEL[kind]} of the name OCC derives already exists in ${bound.name}; OCC never takes one over.`,
    what: `create ${kind}s`,
  });
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
export function patchPinned(
  client: ObjectClient,
  kind: TenantObjectKind,
  bound: BoundNamespace,
  pinned: PinnedObject,
  patch: { readonly metadata: ObjectMeta; readonly data?: Readonly<Record<string, string>> },
): Promise<PinnedObject> {
  requireSameNamespace(bound, pinned);
  const guarded = {
    ...patch,
    metadata: { ...patch.metadata, resourceVersion: pinned.resourceVersion },
  };
  const at = { name: pinned.objectName, namespace: bound.name };
  return pinnedWrite(bound, () => client.patch(kind, at, guarded, { type: "merge" }), {
    refusedFor: ["conflict", "not-found"],
    refusal: `The ${LABEL[kind]} OCC wrote was changed or removed since it was verified.`,
    what: `update ${kind}s`,
  });
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
