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
  /**
   * The tenant is bound (`ready` or `degraded`, lifecycle.md §3): drift OCC owns is repaired,
   * drift the operator owns is reported and nothing of theirs is written — an external
   * namespace that lost a marker is not bound again. Absent: first placement.
   */
  readonly bound?: boolean;
  /** Told what the pass saw and repaired, for the record and metrics (best effort). */
  readonly observer?: PassObserver;
}

/** What a pass reports beside its result (lifecycle.md §2, §3). */
export interface PassObserver {
  /** The tenant's Kubernetes namespace as read: its name and UID, or `null` when absent. */
  namespace(name: string, uid: string | null): void;
  /** One owned object (or the managed namespace's markers) written back after drift. */
  repaired(kind: string): void;
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
