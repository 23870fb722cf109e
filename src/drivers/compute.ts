import type {
  DeleteNamespaceResult,
  EnsureNamespaceResult,
  NamespaceId,
  Placement,
} from "../domain/index.js";

/** What the worker hands a Compute Driver for one Namespace pass. */
export interface NamespacePassInput {
  readonly namespaceId: NamespaceId;
  readonly placement: Placement;
  /**
   * The `metadata.uid` recorded when the namespace was first created or bound, or `null` if
   * none was recorded yet. A namespace under the same name with another UID is refused.
   */
  readonly boundUid: string | null;
}

/**
 * The contract between OCC and a Compute Driver. Both calls are idempotent and level-based:
 * they read the current state, converge, and return one outcome — never throw for an expected
 * Kubernetes answer. The worker records `ready.uid` as the bound UID and applies the outcome
 * table (pending: retry without spending an attempt; failed: retry or stop per `retryable`).
 */
export interface ComputeDriver {
  /** Places the tenant: verify or create its namespace, bind it, reconcile owned objects. */
  ensureNamespace(input: NamespacePassInput): Promise<EnsureNamespaceResult>;
  /** Removes what OCC owns for the tenant; an external namespace itself always stays. */
  deleteNamespace(input: NamespacePassInput): Promise<DeleteNamespaceResult>;
}

/**
 * A hook another Driver (the Sandbox Driver) runs inside a placed namespace: after the owned
 * objects are reconciled, and before anything is deleted. A non-ready result stops the pass.
 */
export interface NamespaceHook {
  readonly name: string;
  onEnsure(namespaceName: string, input: NamespacePassInput): Promise<EnsureNamespaceResult | null>;
  onDelete(namespaceName: string, input: NamespacePassInput): Promise<DeleteNamespaceResult | null>;
}
