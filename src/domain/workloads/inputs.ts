/**
 * What one Agent revision's workload objects are rendered from (the Installation's workload
 * settings, the Credential Proxy, the revision) and the shape of a rendered object
 * (drivers.md §4–5). Types only: `objects.ts` renders, `pods.ts` builds the pod specs.
 */
import type { PeerSetting } from "../isolation/compute-settings.js";
import type { WorkloadKind, WorkloadScope } from "./names.js";

/** The Installation's workload settings (`workloads.*`). */
export interface WorkloadImages {
  readonly gatewayImage: string;
  readonly harnessImage: string;
  readonly gatewayResources: { readonly cpu: string; readonly memory: string };
  readonly harnessResources: { readonly cpu: string; readonly memory: string };
  readonly gatewayStateSize: string;
  readonly workspaceSize: string;
  readonly storageClassName: string | undefined;
}

/** The Credential Proxy (`network.egressAuthority`). */
export interface EgressAuthoritySetting {
  readonly namespace: string;
  readonly podLabels: Readonly<Record<string, string>>;
  readonly port: number;
  /** The Service in `namespace` in front of those pods: workloads address the proxy by it. */
  readonly service: string;
}

export type ExecutionModeValue = "embedded" | "dedicated";

/** Everything one revision's objects are rendered from. */
export interface WorkloadInput {
  readonly tenantId: string;
  readonly namespace: string;
  readonly agentId: string;
  readonly executionMode: ExecutionModeValue;
  readonly revisionId: string;
  /** The Configuration document as snapshotted by the revision (JSON text). */
  readonly configurationDocument: string;
  readonly workloads: WorkloadImages;
  readonly egressAuthority: EgressAuthoritySetting | null;
  readonly dns: PeerSetting;
  readonly gatewayPort: number;
  /** The kind of the Agent ServiceAccount's credential, or null when it has none. */
  readonly credentialKind: string | null;
}

/** Metadata of a rendered object: always named and namespaced. */
export interface WorkloadMeta {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** One rendered object (the body the API server receives). */
export interface WorkloadObject {
  readonly apiVersion: string;
  readonly kind: Exclude<WorkloadKind, "PersistentVolumeClaim">;
  readonly metadata: WorkloadMeta;
  readonly [field: string]: unknown;
}

/** A rendered object with the scope its markers come from. */
export interface DesiredWorkloadObject {
  readonly scope: WorkloadScope;
  readonly object: WorkloadObject;
  /** Written once and never compared beyond its markers (a Secret's generated value). */
  readonly createOnly: boolean;
}
