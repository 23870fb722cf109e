/**
 * What every workload pass shares: its options, the bound namespace resolved afresh (never
 * cached), and how a failed Kubernetes request becomes a workload outcome.
 */
import {
  workloadNotDone,
  workloadNotDoneOf,
  type ComputeSettings,
  type EgressAuthoritySetting,
  type WorkloadImages,
  type WorkloadNotDone,
} from "../../../domain/index.js";
import type { WorkloadTenant } from "../../workloads.js";
import type { ObjectClient } from "../client/index.js";
import { outcomeOfKubeError } from "../compute/failures.js";
import type { DriverProfile } from "../../profile.js";
import {
  TenantObjectError,
  type BoundNamespace,
  type TenantObjectFailure,
} from "../../tenant-objects.js";
import { resolveBoundNamespace } from "../tenant/bound-namespace.js";

export interface KubernetesWorkloadDriverOptions {
  readonly client: ObjectClient;
  /** The process's profile: how the tenant's bound namespace is found (no default). */
  readonly profile: DriverProfile;
  /** Validated Compute settings: the DNS peer and the gateway port. */
  readonly settings: ComputeSettings;
  /** `workloads.*` of the Installation configuration. */
  readonly workloads: WorkloadImages;
  /** `network.egressAuthority`, or null. */
  readonly egressAuthority: EgressAuthoritySetting | null;
  /**
   * Test seam: runs after a claim was read and verified and before its guarded delete, so a
   * test can replace the claim in that window and prove the UID precondition holds.
   */
  readonly beforeClaimDelete?: (claim: { name: string; namespace: string }) => Promise<void>;
}

/** Where a resolution failure leaves a pass. */
const RESOLUTION_CODES = {
  ownership: "KUBERNETES_OWNERSHIP_CONFLICT",
  "namespace-missing": "KUBERNETES_NAMESPACE_PENDING",
  "permission-missing": "KUBERNETES_PERMISSION_PENDING",
  unavailable: "KUBERNETES_API_UNAVAILABLE",
} as const satisfies Record<TenantObjectFailure, string>;

/** The bound namespace, or the outcome that stops the pass (`namespace-missing` kept apart). */
export async function resolveForWorkload(
  opts: Pick<KubernetesWorkloadDriverOptions, "client" | "profile">,
  tenant: WorkloadTenant,
): Promise<BoundNamespace | { readonly missing: true } | WorkloadNotDone> {
  try {
    return await resolveBoundNamespace(opts.client, opts.profile, tenant);
  } catch (err) {
    if (!(err instanceof TenantObjectError)) throw err;
    if (err.reason === "namespace-missing") return { missing: true };
    if (err.reason === "permission-missing") {
      return workloadNotDone(
        RESOLUTION_CODES[err.reason],
        "the worker may not list namespaces to resolve the tenant's namespace: grant the chart's worker ClusterRole",
      );
    }
    return workloadNotDone(RESOLUTION_CODES[err.reason], err.message);
  }
}

/** A failed Kubernetes request in the verified namespace, as a workload outcome. */
export function kubeFailure(err: unknown, what: string, namespace: string): WorkloadNotDone {
  return workloadNotDoneOf(outcomeOfKubeError(err, "after-verification", what, namespace));
}

export function isNotDone(value: object): value is WorkloadNotDone {
  return "outcome" in value;
}
