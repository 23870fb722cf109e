import {
  boundNamespaceMissingViolation,
  desiredManagedNamespace,
  notDone,
  notDoneFromViolations,
  ready,
  resolveForPlacement,
  uidPinViolation,
  verifyManagedNamespace,
  type EnsureNamespaceResult,
  type K8sNamespace,
  type NetworkPolicy,
} from "../../../domain/index.js";
import { isKubeError } from "../client/index.js";
import { claimantSelector, type PassContext } from "./context.js";
import { outcomeOfKubeError } from "./failures.js";
import { finishPlacement } from "./finish.js";
import { ensureTenantRoleBindings } from "./tenant-bindings.js";
import { revokedTenantPermission } from "./tenant-permission.js";

/**
 * Managed placement (placement.md §4.1): resolve the tenant's claimant; use it if it is a
 * verified managed namespace under the current or previous name; otherwise create the current
 * name. An unowned namespace of that name is refused, never taken over; an external claimant
 * is refused because it was never explicitly selected.
 */
export async function ensureManaged(ctx: PassContext): Promise<EnsureNamespaceResult> {
  const { client, input } = ctx;
  const id = input.namespaceId;
  const routing = ctx.settings.gatewayRouting;
  let namespace: K8sNamespace | undefined;
  let created = false;
  try {
    const claimants = await client.list("Namespace", {
      labelSelector: claimantSelector(id),
    });
    const resolution = resolveForPlacement({ mode: "managed" }, id, claimants);
    if (resolution.kind === "refused") return notDoneFromViolations(resolution.violations);
    if (resolution.kind === "claimed") {
      namespace = resolution.namespace;
    } else if (input.boundUid !== null) {
      // It existed once under this tenant; recreating it silently would hide data loss.
      namespace = await client.find("Namespace", { name: resolution.name });
      if (namespace === undefined) {
        input.observer?.namespace(resolution.name, null);
        return notDoneFromViolations([boundNamespaceMissingViolation()]);
      }
    } else {
      // Create first: the common case costs no read, and a same-named namespace answers 409
      // AlreadyExists, after which it is read and verified like any other (never taken over).
      try {
        namespace = await client.create("Namespace", desiredManagedNamespace(id, routing));
        created = true;
      } catch (err) {
        if (!(isKubeError(err, "conflict") && err.reason === "AlreadyExists")) throw err;
        namespace = await client.find("Namespace", { name: resolution.name });
        if (namespace === undefined) {
          return notDone(
            "KUBERNETES_CONFLICT",
            "the managed namespace vanished while it was created; retrying",
          );
        }
      }
    }
  } catch (err) {
    return outcomeOfKubeError(err, "before-verification", "place the managed namespace");
  }

  input.observer?.namespace(namespace.metadata?.name ?? "", namespace.metadata?.uid ?? null);
  const pin = uidPinViolation(input.boundUid, namespace);
  if (pin !== null) return notDoneFromViolations([pin]);
  const pinned = input.boundUid !== null;
  const verdict = verifyManagedNamespace(namespace, id, routing, pinned);
  if (verdict.verdict === "refused") return notDoneFromViolations(verdict.violations);
  if (verdict.verdict === "pending") return verdict.result;
  const name = namespace.metadata?.name ?? "";

  if (verdict.patch !== null) {
    try {
      await client.patch(
        "Namespace",
        { name },
        {
          metadata: {
            resourceVersion: verdict.patch.resourceVersion,
            labels: verdict.patch.labels,
            annotations: verdict.patch.annotations,
          },
        },
        { type: "merge" },
      );
    } catch (err) {
      return outcomeOfKubeError(err, "before-verification", "update the managed namespace markers");
    }
    if (input.bound === true) input.observer?.repaired("Namespace");
  }

  if (ctx.tenantRoleBindings !== null) {
    const bound = await ensureTenantRoleBindings(client, id, name, ctx.tenantRoleBindings);
    if (bound !== null) return bound;
  } else if (input.bound === true) {
    // The operator grants the roles here; a bound tenant's grant is watched like an external
    // one's (lifecycle.md §1–2): served from the caches, a revocation would otherwise go unseen.
    const revoked = await revokedTenantPermission(client, name, ctx.grants);
    if (revoked !== null) return revoked;
  }
  const done = ready(verdict.uid, name);
  if (created) return finishPlacement(ctx, name, "just-created", done, true);
  let policies: NetworkPolicy[];
  try {
    policies = await client.list("NetworkPolicy", { namespace: name });
  } catch (err) {
    return outcomeOfKubeError(err, "after-verification", "list NetworkPolicies", name);
  }
  return finishPlacement(ctx, name, { policies }, done, verdict.patch !== null);
}
