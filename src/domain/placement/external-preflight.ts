/**
 * `occ namespaces preflight` (preprovisioned.md §7): every requirement an external candidate
 * must meet before an administrator selects it, checked read-only with exactly the verdicts
 * the worker uses, and reported all at once so the operator fixes everything in one go.
 */
import type { GatewayRouting } from "../isolation/compute-settings.js";
import { foreignPolicyViolation, verifyExternalNamespace } from "./external-namespace.js";
import type { HasMetadata, K8sNamespace } from "./k8s-objects.js";
import { validateExistingNamespace } from "./reserved.js";
import { violation, type Violation } from "./violations.js";

/** What the preflight read: the namespace (null when absent) and its NetworkPolicies. */
export interface ExternalCandidate {
  readonly name: string;
  readonly namespace: K8sNamespace | null;
  readonly policies: readonly HasMetadata[];
}

export interface PreflightContext {
  /** The tenant it will be bound to; a placeholder ID for a tenant not created yet. */
  readonly tenantId: string;
  readonly routing: GatewayRouting | null;
  readonly controllerNamespace: string;
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
    const policies = foreignPolicyViolation(candidate.policies, ctx.tenantId);
    if (policies !== null) found.push(policies);
  }
  return found;
}
