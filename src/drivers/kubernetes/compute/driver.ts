import {
  notDone,
  type ComputeSettings,
  type DeleteNamespaceResult,
  type EnsureNamespaceResult,
} from "../../../domain/index.js";
import type { ComputeDriver, NamespaceHook, NamespacePassInput } from "../../compute.js";
import type { ObjectClient } from "../client/index.js";
import type { PassContext } from "./context.js";
import { deleteForTenant } from "./delete.js";
import { ensureExternal } from "./ensure-external.js";
import { ensureManaged } from "./ensure-managed.js";

export interface KubernetesComputeDriverOptions {
  readonly client: ObjectClient;
  /** Validated Installation Compute settings (`validateComputeSettings`). */
  readonly settings: ComputeSettings;
  readonly hooks?: readonly NamespaceHook[];
}

/**
 * The bundled Kubernetes Compute Driver: places a tenant in its managed or selected namespace
 * and removes what OCC owns there. Each call is one level-based pass; see `ComputeDriver`.
 */
export class KubernetesComputeDriver implements ComputeDriver {
  constructor(private readonly opts: KubernetesComputeDriverOptions) {}

  ensureNamespace(input: NamespacePassInput): Promise<EnsureNamespaceResult> {
    const ctx = this.context(input);
    switch (input.placement.mode) {
      case "managed":
        return ensureManaged(ctx);
      case "external":
        return ensureExternal(ctx, input.placement.existingNamespace);
      case "preprovisioned":
        return Promise.resolve(
          notDone(
            "CONFIGURATION_INVALID",
            "preprovisioned placement is not available in this build of the Kubernetes Compute Driver",
          ),
        );
    }
  }

  deleteNamespace(input: NamespacePassInput): Promise<DeleteNamespaceResult> {
    return deleteForTenant(this.context(input));
  }

  private context(input: NamespacePassInput): PassContext {
    return {
      client: this.opts.client,
      settings: this.opts.settings,
      hooks: this.opts.hooks ?? [],
      input,
    };
  }
}
