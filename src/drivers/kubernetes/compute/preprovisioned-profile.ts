import {
  PREPROVISIONED_DELETION_REFUSAL,
  PREPROVISIONED_MESSAGES,
  currentManagedName,
  deleted,
  notDone,
  type DeleteNamespaceResult,
  type K8sNamespace,
  type NotDone,
} from "../../../domain/index.js";
import type { NamespacePassInput } from "../../compute.js";
import type { PassContext, PreprovisionedProfile } from "./context.js";
import { outcomeOfKubeError } from "./failures.js";

/**
 * In the preprovisioned profile only the bound Namespace ID can be placed, and never by
 * `existingNamespace` selection (preprovisioned.md §3): anything else is refused permanently,
 * before any Kubernetes request. `null` when the pass is the bound tenant's.
 */
export function profileRefusal(
  profile: PreprovisionedProfile,
  input: NamespacePassInput,
): NotDone | null {
  if (input.placement.mode === "external") {
    return notDone("KUBERNETES_OWNERSHIP_CONFLICT", PREPROVISIONED_MESSAGES.existingNamespace);
  }
  if (input.namespaceId !== profile.binding.namespaceId) {
    return notDone("KUBERNETES_OWNERSHIP_CONFLICT", PREPROVISIONED_MESSAGES.otherNamespace);
  }
  return null;
}

/**
 * deleteNamespace in the preprovisioned profile (§5). A tenant that is not the bound one was
 * never placed (every ensure refused it before any request), so there is nothing of OCC's to
 * remove: deleted, with no request. For the bound tenant: missing → deleted; otherwise the
 * Sandbox cleanup hooks run (the OpenShell Workspace is removed), and deletion is then refused
 * permanently — the operator retains the namespace and owns its teardown.
 */
export async function deletePreprovisioned(
  ctx: PassContext,
  profile: PreprovisionedProfile,
): Promise<DeleteNamespaceResult> {
  const { client, input } = ctx;
  if (profileRefusal(profile, input) !== null) return deleted();
  const name = currentManagedName(input.namespaceId);
  let namespace: K8sNamespace | undefined;
  try {
    namespace = await client.find("Namespace", { name });
  } catch (err) {
    return outcomeOfKubeError(err, "before-verification", "read the preprovisioned namespace");
  }
  if (namespace === undefined) return deleted();
  for (const hook of ctx.hooks) {
    const result = await hook.onDelete(name, input);
    if (result !== null && result.outcome !== "deleted") return result;
  }
  return notDone("KUBERNETES_OWNERSHIP_CONFLICT", PREPROVISIONED_DELETION_REFUSAL);
}
