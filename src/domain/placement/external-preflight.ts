/**
 * `occ namespaces preflight` (preprovisioned.md §7): every requirement an external candidate
 * must meet before an administrator selects it, checked read-only with exactly the verdicts
 * the worker uses, and reported all at once so the operator fixes everything in one go:
 * markers, lifecycle, Pod Security and activity; no other namespace claiming the tenant; no
 * foreign NetworkPolicy; the labels a Sandbox Driver requires; the worker's and the API's
 * tenant RoleBindings.
 */
import type { GatewayRouting } from "../isolation/compute-settings.js";
import {
  exclusiveClaimViolation,
  foreignPolicyViolation,
  verifyExternalNamespace,
} from "./external-namespace.js";
import type { HasMetadata, K8sNamespace, StringMap } from "./k8s-objects.js";
import {
  missingGrantViolations,
  operatorLabelViolations,
  type BindingLike,
  type RequiredGrant,
} from "./operator-requirements.js";
import { validateExistingNamespace } from "./reserved.js";
import { violation, type Violation } from "./violations.js";

/**
 * What the preflight read: the namespace (null when absent), its NetworkPolicies, the
 * RoleBindings in it and the ClusterRoleBindings, and the namespaces labelled as the tenant's.
 */
export interface ExternalCandidate {
  readonly name: string;
  readonly namespace: K8sNamespace | null;
  readonly policies: readonly HasMetadata[];
  readonly bindings: readonly BindingLike[];
  readonly claimants: readonly K8sNamespace[];
}

export interface PreflightContext {
  /** The tenant it will be bound to; a placeholder ID for a tenant not created yet. */
  readonly tenantId: string;
  readonly routing: GatewayRouting | null;
  readonly controllerNamespace: string;
  /** The tenant RoleBindings adoption needs (the worker's, the API's, OpenShell's). */
  readonly grants: readonly RequiredGrant[];
  /** Labels a Sandbox Driver requires on the namespace, and the setting that declares them. */
  readonly labels: { readonly required: StringMap; readonly setting: string };
}

/** Every failing requirement, ownership first; an empty list means adoption would pass. */
export function preflightExternal(
  candidate: ExternalCandidate,
  ctx: PreflightContext,
): Violation[] {
  const selectable = validateExistingNamespace(candidate.name, ctx.controllerNamespace);
  if (!selectable.ok) {
    return [violation("explicit-selection", "CONFIGURATION_INVALID", selectable.error.message)];
  }
  const found: Violation[] = [];
  const verdict = verifyExternalNamespace(candidate.namespace, ctx.tenantId, ctx.routing);
  if (verdict.verdict === "refused") found.push(...verdict.violations);
  if (candidate.namespace !== null) {
    const claim = exclusiveClaimViolation(candidate.claimants, candidate.name, ctx.tenantId);
    if (claim !== null) found.push(claim);
    const policies = foreignPolicyViolation(candidate.policies, ctx.tenantId);
    if (policies !== null) found.push(policies);
    found.push(
      ...operatorLabelViolations(
        candidate.name,
        candidate.namespace.metadata,
        ctx.labels.required,
        ctx.labels.setting,
      ),
      ...missingGrantViolations(candidate.name, candidate.bindings, ctx.grants),
    );
  }
  return found;
}
