import {
  decideAfterBindingConflict,
  exclusiveClaimViolation,
  markerRemovedViolation,
  namespaceBindingMarkers,
  foreignPolicyViolation,
  notDoneFromViolations,
  ready,
  uidPinViolation,
  verifyBoundExternalNamespace,
  verifyExternalNamespace,
  type EnsureNamespaceResult,
  type K8sNamespace,
  type MetadataPatch,
  type NetworkPolicy,
  type NotDone,
} from "../../../domain/index.js";
import { isKubeError } from "../client/index.js";
import { claimantSelector, type PassContext } from "./context.js";
import { outcomeOfKubeError } from "./failures.js";
import { finishPlacement } from "./finish.js";
import { missingTenantPermission, revokedTenantPermission } from "./tenant-permission.js";

/**
 * External placement (placement.md §4.2): verify the explicitly selected namespace, bind the
 * tenant to it with one guarded, non-forced write, and reconcile the owned objects. Every
 * refusal is permanent and leaves the namespace untouched; it is never created and there is
 * never a fallback. Until the namespace is verified a 403 is a permanent rejection; after it,
 * a 403 means the operator has not granted the worker's RoleBinding yet: pending.
 */
export async function ensureExternal(
  ctx: PassContext,
  selected: string,
): Promise<EnsureNamespaceResult> {
  const { client, input } = ctx;
  const id = input.namespaceId;
  const routing = ctx.settings.gatewayRouting;

  let namespace: K8sNamespace | null;
  try {
    namespace = (await client.find("Namespace", { name: selected })) ?? null;
  } catch (err) {
    return outcomeOfKubeError(err, "before-verification", "read the selected namespace");
  }
  input.observer?.namespace(selected, namespace?.metadata?.uid ?? null);
  const pinned = namespace !== null ? uidPinViolation(input.boundUid, namespace) : null;
  if (pinned !== null) return notDoneFromViolations([pinned]);
  const verdict = verifyExternalNamespace(namespace, id, routing);
  if (verdict.verdict === "refused") return notDoneFromViolations(verdict.violations);
  // Bound: a marker the operator removed is reported, never written back (lifecycle.md §3).
  if (input.bound === true && verdict.patch !== null) {
    const wanted = namespaceBindingMarkers(id, routing);
    return notDoneFromViolations([markerRemovedViolation(namespace ?? {}, wanted)]);
  }
  let claimants: K8sNamespace[];
  try {
    claimants = await client.list("Namespace", {
      labelSelector: claimantSelector(id),
    });
  } catch (err) {
    return outcomeOfKubeError(err, "before-verification", "list the tenant's claimants");
  }
  const claim = exclusiveClaimViolation(claimants, selected, id);
  if (claim !== null) return notDoneFromViolations([claim]);

  // Verified: from here a 403 is a missing tenant RoleBinding (pending), not a refusal.
  let policies: NetworkPolicy[];
  try {
    policies = await client.list("NetworkPolicy", { namespace: selected });
  } catch (err) {
    return outcomeOfKubeError(err, "after-verification", "list NetworkPolicies", selected);
  }
  const foreign = foreignPolicyViolation(policies, id);
  if (foreign !== null) return notDoneFromViolations([foreign]);
  if (input.bound === true) {
    const revoked = await revokedTenantPermission(client, selected, ctx.grants);
    if (revoked !== null) return revoked;
  }

  let uid = verdict.uid;
  if (verdict.patch !== null) {
    const missing = await missingTenantPermission(client, selected);
    if (missing !== null) return missing;
    const bound = await bind(ctx, selected, verdict.patch);
    if (bound.outcome !== "bound") return bound;
    uid = bound.uid;
  }
  const written = verdict.patch !== null;
  return finishPlacement(ctx, selected, { policies }, ready(uid, selected), written);
}

/**
 * §4.2 step 7–8: one server-side apply of only the binding keys, carrying the observed
 * `resourceVersion` and never forcing field ownership, so the operator's manager label and
 * every unrelated key stay theirs. A 409 means someone else changed the namespace: read it
 * again and decide (another tenant bound it → permanent; our own concurrent pass completed
 * it → continue; anything else → retryable).
 */
async function bind(
  ctx: PassContext,
  selected: string,
  patch: MetadataPatch,
): Promise<{ readonly outcome: "bound"; readonly uid: string } | NotDone> {
  const { client, input } = ctx;
  const routing = ctx.settings.gatewayRouting;
  try {
    const written = await client.apply("Namespace", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: selected,
        resourceVersion: patch.resourceVersion,
        labels: patch.labels,
        annotations: patch.annotations,
      },
    });
    return verifyBoundExternalNamespace(written, input.namespaceId, routing);
  } catch (err) {
    if (!isKubeError(err, "conflict")) {
      return outcomeOfKubeError(err, "after-verification", "bind the selected namespace", selected);
    }
  }
  try {
    const reread = (await client.find("Namespace", { name: selected })) ?? null;
    const decision = decideAfterBindingConflict(reread, input.namespaceId, routing);
    if (decision.outcome !== "bound") return decision;
    return verifyBoundExternalNamespace(reread, input.namespaceId, routing);
  } catch (err) {
    return outcomeOfKubeError(
      err,
      "after-verification",
      "re-read the selected namespace",
      selected,
    );
  }
}
