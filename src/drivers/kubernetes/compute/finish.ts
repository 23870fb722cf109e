import type { EnsureNamespaceResult, NotDone, Ready } from "../../../domain/index.js";
import type { PassContext } from "./context.js";
import { isTenantViewRefusal } from "./failures.js";
import { reconcileOwnedObjects, type ObservedContents } from "./owned-objects.js";

/**
 * How long a pass that has just written the namespace's tenant label waits for the API
 * server's admission view of it. The admission plugin reads `namespaceObject` from its own
 * informer, which trails a write by milliseconds (seen once in CI: the ResourceQuota written
 * right after binding an external namespace was refused as if the namespace had no tenant).
 * A refusal that outlives these waits is reported as it is: fail closed.
 */
const TENANT_VIEW_WAITS_MS = [50, 100, 200, 400, 800, 1600] as const;

/**
 * The common tail of every placement once the namespace is verified and bound: reconcile the
 * owned objects (§5), then run each Sandbox hook; the first non-ready result stops the pass.
 * `namespaceWritten`: this pass wrote the namespace's tenant markers itself (bound or
 * repaired), whose answer carried them, so an admission refusal naming the namespace's tenant
 * can only be the API server's view trailing that write.
 */
export async function finishPlacement(
  ctx: PassContext,
  namespace: string,
  observed: ObservedContents,
  done: Ready,
  namespaceWritten = false,
): Promise<EnsureNamespaceResult> {
  const owned = await ownedObjects(ctx, namespace, observed, namespaceWritten);
  if (owned !== null) return owned;
  for (const hook of ctx.hooks) {
    const result = await hook.onEnsure(namespace, ctx.input);
    if (result !== null && result.outcome !== "ready") return result;
  }
  return done;
}

async function ownedObjects(
  ctx: PassContext,
  namespace: string,
  observed: ObservedContents,
  namespaceWritten: boolean,
): Promise<NotDone | null> {
  const { client, settings, input } = ctx;
  const once = () =>
    reconcileOwnedObjects(
      client,
      input.namespaceId,
      namespace,
      settings,
      observed,
      input.bound === true ? (kind) => input.observer?.repaired(kind) : undefined,
    );
  let result = await once();
  if (!namespaceWritten) return result;
  for (const wait of TENANT_VIEW_WAITS_MS) {
    if (result === null || !isTenantViewRefusal(result)) return result;
    await new Promise((r) => setTimeout(r, wait));
    result = await once();
  }
  return result;
}
