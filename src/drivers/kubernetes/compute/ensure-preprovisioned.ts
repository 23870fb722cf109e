import {
  PREPROVISIONED_MESSAGES,
  desiredOwnedObjects,
  notDone,
  ownedObjectAction,
  ready,
  sealedPolicyFailures,
  sealedPolicyRefusal,
  sealedPolicySet,
  verifyPreprovisionedNamespace,
  currentManagedName,
  type EnsureNamespaceResult,
  type K8sNamespace,
  type NetworkPolicy,
  type NotDone,
  type OwnedObject,
} from "../../../domain/index.js";
import { convergeObject, type Converged } from "../converge.js";
import type { PassContext, PreprovisionedProfile } from "./context.js";
import { outcomeOfKubeError } from "./failures.js";

/**
 * Preprovisioned placement (placement.md §4.3, preprovisioned.md §3): `get` the derived name
 * (never a list — RBAC forbids it), verify every requirement of the seed's table and the bound
 * UID, check the sealed NetworkPolicy set, then create only OCC's own missing objects. The
 * namespace is never written; a changed own object is refused, not overwritten; each Sandbox
 * hook runs last. Every refusal is permanent.
 */
export async function ensurePreprovisioned(
  ctx: PassContext,
  profile: PreprovisionedProfile,
): Promise<EnsureNamespaceResult> {
  const { client, input, settings } = ctx;
  const id = input.namespaceId;
  const name = currentManagedName(id);
  let namespace: K8sNamespace | null;
  try {
    namespace = (await client.find("Namespace", { name })) ?? null;
  } catch (err) {
    return outcomeOfKubeError(err, "before-verification", "read the preprovisioned namespace");
  }
  const verdict = verifyPreprovisionedNamespace(
    namespace,
    {
      binding: profile.binding,
      routing: settings.gatewayRouting,
      operatorNamespaceLabels: profile.operatorNamespaceLabels,
    },
    input.boundUid,
  );
  if (verdict.verdict === "refused") return verdict.result;

  // Verified: from here a 403 is a missing tenant RoleBinding (pending).
  let policies: NetworkPolicy[];
  try {
    policies = await client.list("NetworkPolicy", { namespace: name });
  } catch (err) {
    return outcomeOfKubeError(err, "after-verification", "list NetworkPolicies", name);
  }
  const seal = sealedPolicyFailures(
    policies,
    sealedPolicySet({
      tenantId: id,
      namespace: name,
      settings,
      egressAuthority: profile.egressAuthority,
      agentIds: await profile.agentIds(id),
      declared: profile.declaredPolicies,
    }),
  );
  if (seal.length > 0) return sealedPolicyRefusal(seal);

  const desired = desiredOwnedObjects(id, name, settings);
  for (const object of desired) {
    const objectName = object.metadata.name ?? "";
    try {
      const stopped = await createIfMissing(ctx, object, async () =>
        object.kind === "NetworkPolicy"
          ? (policies.find((p) => p.metadata.name === objectName) ?? null)
          : ((await client.find(object.kind, { name: objectName, namespace: name })) ?? null),
      );
      if (stopped !== "unchanged" && stopped !== "written") return stopped;
    } catch (err) {
      return outcomeOfKubeError(
        err,
        "after-verification",
        `write ${object.kind} ${objectName}`,
        name,
      );
    }
  }
  for (const hook of ctx.hooks) {
    const result = await hook.onEnsure(name, input);
    if (result !== null && result.outcome !== "ready") return result;
  }
  return ready(verdict.uid, name);
}

/**
 * One owned object in the sealed namespace: create it when missing; otherwise it must be ours
 * and equal to the desired object — a changed one is refused (the operator deletes it and the
 * next pass recreates it), never overwritten.
 */
function createIfMissing(
  ctx: PassContext,
  desired: OwnedObject,
  observe: () => Promise<OwnedObject | null>,
): Promise<Converged<NotDone>> {
  const label = `${desired.kind} ${desired.metadata.name ?? ""}`;
  const changed = notDone(
    "KUBERNETES_OWNERSHIP_CONFLICT",
    `${PREPROVISIONED_MESSAGES.changedOwnedObject} (${label})`,
  );
  return convergeObject({
    observe,
    decide: (observed) => {
      const decision = ownedObjectAction(observed, desired, ctx.input.namespaceId);
      // The sealed namespace is never written over: a changed own object is refused.
      return decision.action === "update" ? { action: "stop", result: changed } : decision;
    },
    create: () => ctx.client.create(desired.kind, desired),
    update: () => Promise.reject(new Error("a preprovisioned owned object is never updated")),
    lostRace: {
      stop: notDone("KUBERNETES_CONFLICT", `${label} appeared while it was created; retrying`),
    },
  });
}
