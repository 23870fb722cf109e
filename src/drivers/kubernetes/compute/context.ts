import type { ComputeSettings } from "../../../domain/index.js";
import type { NamespaceHook, NamespacePassInput } from "../../compute.js";
import type { ObjectClient } from "../client/index.js";

/** Everything one pass of the Kubernetes Compute Driver works with. */
export interface PassContext {
  readonly client: ObjectClient;
  readonly settings: ComputeSettings;
  readonly hooks: readonly NamespaceHook[];
  readonly input: NamespacePassInput;
}

/** `openclaw.dev/namespace=<id>`: the label selector that finds every claimant of a tenant. */
export function claimantSelector(tenantId: string): string {
  return `openclaw.dev/namespace=${tenantId}`;
}
