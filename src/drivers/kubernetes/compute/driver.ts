import {
  notDone,
  type ComputeSettings,
  type DeleteNamespaceResult,
  type EnsureNamespaceResult,
} from "../../../domain/index.js";
import type { TenantRoleBindingSubjects } from "../../../config/installation-config.js";
import type { ComputeDriver, NamespaceHook, NamespacePassInput } from "../../compute.js";
import type { ObjectClient } from "../client/index.js";
import type { PassContext, PreprovisionedProfile } from "./context.js";
import { deleteForTenant } from "./delete.js";
import { ensureExternal } from "./ensure-external.js";
import { ensureManaged } from "./ensure-managed.js";
import { ensurePreprovisioned } from "./ensure-preprovisioned.js";
import { deletePreprovisioned, profileRefusal } from "./preprovisioned-profile.js";
import { GrantMemo } from "./tenant-permission.js";

export interface KubernetesComputeDriverOptions {
  readonly client: ObjectClient;
  /** Validated Installation Compute settings (`validateComputeSettings`). */
  readonly settings: ComputeSettings;
  readonly hooks?: readonly NamespaceHook[];
  /**
   * The preprovisioned profile: every pass is about the one bound namespace, read by name and
   * verified, never written. Absent → the normal profile (managed and external placement).
   */
  readonly preprovisioned?: PreprovisionedProfile | null;
  /**
   * Normal profile with the admission policies (`kubernetes.tenantRoleBindings`): managed
   * placement binds the tenant roles to these identities itself. Absent → the operator does.
   */
  readonly tenantRoleBindings?: TenantRoleBindingSubjects | null;
}

/**
 * The bundled Kubernetes Compute Driver: places a tenant in its managed or selected namespace
 * and removes what OCC owns there. Each call is one level-based pass; see `ComputeDriver`.
 */
export class KubernetesComputeDriver implements ComputeDriver {
  private readonly grants = new GrantMemo();

  constructor(private readonly opts: KubernetesComputeDriverOptions) {}

  ensureNamespace(input: NamespacePassInput): Promise<EnsureNamespaceResult> {
    const ctx = this.context(input);
    const profile = ctx.preprovisioned;
    if (profile !== null) {
      const refused = profileRefusal(profile, input);
      return refused !== null ? Promise.resolve(refused) : ensurePreprovisioned(ctx, profile);
    }
    switch (input.placement.mode) {
      case "managed":
        return ensureManaged(ctx);
      case "external":
        return ensureExternal(ctx, input.placement.existingNamespace);
      case "preprovisioned":
        return Promise.resolve(
          notDone(
            "CONFIGURATION_INVALID",
            "preprovisioned placement needs the OCC_PREPROVISIONED_NAMESPACE binding, which this process was started without",
          ),
        );
    }
  }

  deleteNamespace(input: NamespacePassInput): Promise<DeleteNamespaceResult> {
    const ctx = this.context(input);
    if (ctx.preprovisioned !== null) return deletePreprovisioned(ctx, ctx.preprovisioned);
    return deleteForTenant(ctx);
  }

  private context(input: NamespacePassInput): PassContext {
    return {
      client: this.opts.client,
      settings: this.opts.settings,
      hooks: this.opts.hooks ?? [],
      input,
      preprovisioned: this.opts.preprovisioned ?? null,
      tenantRoleBindings: this.opts.tenantRoleBindings ?? null,
      grants: this.grants,
    };
  }
}
