import type {
  ComputeSettings,
  DeclaredPolicy,
  EgressAuthoritySetting,
  NamespaceId,
  PreprovisionedBinding,
  StringMap,
} from "../../../domain/index.js";
import type { TenantRoleBindingSubjects } from "../../../config/installation-config.js";
import type { NamespaceHook, NamespacePassInput } from "../../compute.js";
import type { ObjectClient } from "../client/index.js";
import type { GrantMemo } from "./tenant-permission.js";

/**
 * The preprovisioned profile (preprovisioned.md): the binding and what the namespace and its
 * sealed policy set must match beyond the Compute settings.
 */
export interface PreprovisionedProfile {
  readonly binding: PreprovisionedBinding;
  /** OpenShell `gateway.operatorNamespaceLabels`, required on the namespace. */
  readonly operatorNamespaceLabels: StringMap;
  /** The declared OpenShell NetworkPolicies, the operator policies the seal admits. */
  readonly declaredPolicies: readonly DeclaredPolicy[];
  /** The Credential Proxy: each Agent's egress policy is rendered from it. */
  readonly egressAuthority: EgressAuthoritySetting | null;
  /**
   * The IDs of the tenant's Agents that exist (any status), read when the seal is checked:
   * only their `agent-egress-…` policies are admitted.
   */
  readonly agentIds: (tenantId: NamespaceId) => Promise<readonly string[]>;
}

/** Everything one pass of the Kubernetes Compute Driver works with. */
export interface PassContext {
  readonly client: ObjectClient;
  readonly settings: ComputeSettings;
  readonly hooks: readonly NamespaceHook[];
  readonly input: NamespacePassInput;
  /** Set in the preprovisioned profile; `null` in the normal one. */
  readonly preprovisioned: PreprovisionedProfile | null;
  /** Set → managed placement binds the tenant roles to these identities itself. */
  readonly tenantRoleBindings: TenantRoleBindingSubjects | null;
  /** The driver's recent "allowed" access reviews of grants that are not tenant RoleBindings. */
  readonly grants: GrantMemo;
}

/** `openclaw.dev/namespace=<id>`: the label selector that finds every claimant of a tenant. */
export function claimantSelector(tenantId: string): string {
  return `openclaw.dev/namespace=${tenantId}`;
}
