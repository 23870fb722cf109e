import type {
  AgentId,
  DeployRevisionResult,
  ExecutionModeValue,
  RevisionId,
  TeardownAgentResult,
} from "../domain/index.js";
import type { TenantPlacement } from "./tenant-objects.js";

/** The tenant an Agent belongs to, as the worker recorded its placement. */
export type WorkloadTenant = TenantPlacement;

/** Where the Agent ServiceAccount's credential is stored: an OCC Secret, as recorded. */
export interface CredentialSource {
  readonly secretId: string;
  readonly kind: string;
  readonly kubernetesNamespace: string;
  readonly namespaceUid: string;
  readonly objectName: string;
  readonly objectUid: string;
}

/** What the worker hands the driver for one revision pass. */
export interface RevisionPassInput {
  readonly tenant: WorkloadTenant;
  readonly agentId: AgentId;
  readonly executionMode: ExecutionModeValue;
  readonly revisionId: RevisionId;
  /** The revision's configuration snapshot (JSON text). */
  readonly configurationDocument: string;
  /** The ServiceAccount's credential, copied into the revision's credentials Secret. */
  readonly credential: CredentialSource | null;
}

/** What the worker hands the driver for one teardown pass. */
export interface AgentTeardownInput {
  readonly tenant: WorkloadTenant;
  readonly agentId: AgentId;
}

/**
 * The workload side of a Compute Driver (drivers.md §4). Both calls are idempotent,
 * level-based passes in the tenant's bound namespace (resolved afresh on every call): they
 * read, converge and return one outcome, never throwing for an expected Kubernetes answer.
 */
export interface WorkloadDriver {
  /**
   * Brings the Agent's objects to `revisionId`: claims (created once, then only verified),
   * the revision's ConfigMap and Secret, the gateway (updated in place) and, in `dedicated`
   * mode, the revision's harness; `active` once the gateway reports the revision available,
   * after the previous revisions' own objects were retired. Pending while the rollout waits.
   */
  deployRevision(input: RevisionPassInput): Promise<DeployRevisionResult>;
  /**
   * Removes every object of the Agent — workloads first, then the private and the shared
   * claim — each only with exact ownership markers and with a UID precondition. `deleted`
   * once all are gone.
   */
  teardownAgent(input: AgentTeardownInput): Promise<TeardownAgentResult>;
}
