import {
  currentManagedName,
  decideNamespaceDeletion,
  deleted,
  deletionPending,
  notDoneFromViolations,
  resolveForPlacement,
  type DeleteNamespaceResult,
  type K8sNamespace,
} from "../../../domain/index.js";
import { isKubeError } from "../client/index.js";
import { claimantSelector, type PassContext } from "./context.js";
import { outcomeOfKubeError } from "./failures.js";
import { deleteOwnedObjects } from "./owned-objects.js";

/**
 * deleteNamespace (placement.md §6). Already missing counts as deleted. A never-bound
 * selection is deleted without any write. Partial or foreign markers, or a recreated
 * namespace, fail permanently. External: Sandbox cleanup, then only the owned objects
 * (`default-deny` last), the namespace itself stays with its markers. Managed: Sandbox
 * cleanup, then the namespace with a UID precondition, pending until it is gone.
 */
export async function deleteForTenant(ctx: PassContext): Promise<DeleteNamespaceResult> {
  const { client, input } = ctx;
  let observed: Observed;
  try {
    observed = await observe(ctx);
  } catch (err) {
    return outcomeOfKubeError(err, "before-verification", "read the tenant namespace");
  }
  if ("refused" in observed) return observed.refused;
  const decision = decideNamespaceDeletion({
    placement: input.placement,
    tenantId: input.namespaceId,
    observed: observed.namespace,
    recordedUid: input.boundUid,
  });
  if (decision.decision === "finished") return decision.result;
  const name = decision.namespaceName;

  for (const hook of ctx.hooks) {
    const result = await hook.onDelete(name, input);
    if (result !== null && result.outcome !== "deleted") return result;
  }

  if (decision.decision === "delete-owned-objects") {
    return (await deleteOwnedObjects(client, input.namespaceId, name)) ?? deleted();
  }
  try {
    await client.delete("Namespace", { name }, { uid: decision.uid });
  } catch (err) {
    if (!isKubeError(err, "not-found")) {
      return outcomeOfKubeError(err, "after-verification", "delete the managed namespace", name);
    }
  }
  try {
    const still = await client.find("Namespace", { name });
    return still?.metadata.uid === decision.uid
      ? deletionPending("the managed namespace is terminating; waiting until it is gone")
      : deleted();
  } catch (err) {
    return outcomeOfKubeError(err, "after-verification", "re-read the managed namespace", name);
  }
}

type Observed =
  { readonly namespace: K8sNamespace | null } | { readonly refused: DeleteNamespaceResult };

/**
 * The namespace deletion is about: the selected one (external), the derived one
 * (preprovisioned), or the managed one as resolved from the tenant's claimants.
 */
async function observe(ctx: PassContext): Promise<Observed> {
  const { client, input } = ctx;
  const placement = input.placement;
  const byName = async (name: string): Promise<Observed> => ({
    namespace: (await client.find("Namespace", { name })) ?? null,
  });
  if (placement.mode === "external") return byName(placement.existingNamespace);
  if (placement.mode === "preprovisioned") return byName(currentManagedName(input.namespaceId));
  const claimants = await client.list("Namespace", {
    labelSelector: claimantSelector(input.namespaceId),
  });
  const resolution = resolveForPlacement(placement, input.namespaceId, claimants);
  if (resolution.kind === "refused") {
    return { refused: notDoneFromViolations(resolution.violations) };
  }
  if (resolution.kind === "claimed") return { namespace: resolution.namespace };
  return byName(resolution.name);
}
