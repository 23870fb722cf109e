import {
  desiredOwnedObjects,
  dnsGrantCompletion,
  notDone,
  ownedObjectAction,
  ownedObjectDeletionPlan,
  deletionProgress,
  type ComputeSettings,
  type NetworkPolicy,
  type NotDone,
  type OwnedObject,
} from "../../../domain/index.js";
import { isKubeError, type ObjectClient } from "../client/index.js";
import { convergeObject, type Converged } from "../converge.js";
import { outcomeOfKubeError } from "./failures.js";

/**
 * What is known of the namespace's contents: the NetworkPolicies listed in this pass, or
 * `just-created` — OCC created the namespace in this very pass, so it holds none of its
 * objects and no read is needed (a concurrent creator would still be caught: every create is
 * a POST that answers 409 AlreadyExists, after which the object is read and verified).
 */
export type ObservedContents = { readonly policies: readonly NetworkPolicy[] } | "just-created";

/**
 * Converges the owned objects of §5 in order: read each (the NetworkPolicies come from the
 * list the caller already made), decide, and write only what differs — a pass over an
 * unchanged namespace writes nothing. A same-named object without this tenant's markers stops
 * the pass (never overwritten). Creates are plain POSTs (a concurrent creator gets 409);
 * updates are server-side applies carrying the observed `resourceVersion`, forced only over
 * fields of an object whose markers were just verified as ours. Returns `null` when done.
 */
export async function reconcileOwnedObjects(
  client: ObjectClient,
  tenantId: string,
  namespace: string,
  settings: ComputeSettings,
  observed: ObservedContents,
  /** Told the kind of every object written (a bound tenant's drift repaired). */
  onWrite?: (kind: string) => void,
): Promise<NotDone | null> {
  for (const desired of desiredOwnedObjects(tenantId, namespace, settings)) {
    const name = desired.metadata.name ?? "";
    const what = `${desired.kind} ${name}`;
    try {
      // Known without a read: nothing in a namespace created just now; policies from the list.
      const known: OwnedObject | null | undefined =
        observed === "just-created"
          ? null
          : desired.kind === "NetworkPolicy"
            ? (observed.policies.find((p) => p.metadata.name === name) ?? null)
            : undefined;
      const result = await convergeOwned(client, tenantId, desired, known);
      if (result === "written") onWrite?.(desired.kind);
      else if (result !== "unchanged") return result;
    } catch (err) {
      return outcomeOfKubeError(err, "after-verification", `write ${what}`, namespace);
    }
  }
  return null;
}

/**
 * One object: read (unless this pass already knows it), decide, write. A create
 * that loses a race (409 AlreadyExists — e.g. a concurrent pass of the same tenant) reads the
 * object once more and decides again, so the winner's object is verified rather than
 * reported as a conflict.
 */
function convergeOwned(
  client: ObjectClient,
  tenantId: string,
  desired: OwnedObject,
  /** What this pass already knows of the object; `undefined` → read it. */
  known: OwnedObject | null | undefined,
): Promise<Converged<NotDone>> {
  const read = async () => (await client.find(desired.kind, refOf(desired))) ?? null;
  // The object the decision was made on: an `allow-dns` that only lacks DNS ports is completed
  // by a minimal UID- and resourceVersion-guarded patch instead of a whole update.
  let seen: OwnedObject | null = null;
  return convergeObject({
    observe: known === undefined ? read : () => Promise.resolve(known),
    decide: (o) => {
      seen = o;
      return ownedObjectAction(o, desired, tenantId);
    },
    create: () => client.create(desired.kind, desired),
    update: (resourceVersion) => {
      const completion =
        seen?.kind === "NetworkPolicy" && desired.kind === "NetworkPolicy"
          ? dnsGrantCompletion(seen, desired)
          : null;
      return completion !== null
        ? client.patch("NetworkPolicy", refOf(desired), completion.patch, { type: "json" })
        : client.apply(
            desired.kind,
            { ...desired, metadata: { ...desired.metadata, resourceVersion } },
            { force: true },
          );
    },
    lostRace: { reread: read },
  });
}

function refOf(obj: OwnedObject): { name: string; namespace: string } {
  return { name: obj.metadata.name ?? "", namespace: obj.metadata.namespace ?? "" };
}

/**
 * Deletes OCC's owned objects from an external namespace (§6): only objects carrying this
 * tenant's exact markers, `default-deny` last, each with its UID as precondition. After each
 * delete the object is read again; if it is still there the pass stops as pending, so an allow
 * policy never outlives the deny. Everything else in the namespace is left as it is.
 */
export async function deleteOwnedObjects(
  client: ObjectClient,
  tenantId: string,
  namespace: string,
): Promise<NotDone | null> {
  let plan;
  try {
    const [resourceQuotas, limitRanges, networkPolicies] = await Promise.all([
      client.list("ResourceQuota", { namespace }),
      client.list("LimitRange", { namespace }),
      client.list("NetworkPolicy", { namespace }),
    ]);
    plan = ownedObjectDeletionPlan({ resourceQuotas, limitRanges, networkPolicies }, tenantId);
  } catch (err) {
    return outcomeOfKubeError(err, "after-verification", "list the owned objects", namespace);
  }
  for (const item of plan) {
    const ref = { name: item.name, namespace };
    try {
      await client.delete(item.kind, ref, { uid: item.uid });
    } catch (err) {
      if (!isKubeError(err, "not-found")) {
        return outcomeOfKubeError(
          err,
          "after-verification",
          `delete ${item.kind} ${item.name}`,
          namespace,
        );
      }
    }
    try {
      const reread = await client.find(item.kind, ref);
      if (deletionProgress(reread ?? null, item.uid) === "survives") {
        return notDone(
          "KUBERNETES_NAMESPACE_PENDING",
          `${item.kind} ${item.name} is still being deleted; deletion continues on the next pass`,
        );
      }
    } catch (err) {
      return outcomeOfKubeError(
        err,
        "after-verification",
        `read ${item.kind} ${item.name}`,
        namespace,
      );
    }
  }
  return null;
}
