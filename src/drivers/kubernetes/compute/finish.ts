import type { EnsureNamespaceResult, Ready } from "../../../domain/index.js";
import type { PassContext } from "./context.js";
import { reconcileOwnedObjects, type ObservedContents } from "./owned-objects.js";

/**
 * The common tail of every placement once the namespace is verified and bound: reconcile the
 * owned objects (§5), then run each Sandbox hook; the first non-ready result stops the pass.
 */
export async function finishPlacement(
  ctx: PassContext,
  namespace: string,
  observed: ObservedContents,
  done: Ready,
): Promise<EnsureNamespaceResult> {
  const { client, settings, input } = ctx;
  const owned = await reconcileOwnedObjects(
    client,
    input.namespaceId,
    namespace,
    settings,
    observed,
    input.bound === true ? (kind) => input.observer?.repaired(kind) : undefined,
  );
  if (owned !== null) return owned;
  for (const hook of ctx.hooks) {
    const result = await hook.onEnsure(namespace, input);
    if (result !== null && result.outcome !== "ready") return result;
  }
  return done;
}
