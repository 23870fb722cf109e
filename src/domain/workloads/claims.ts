/**
 * The claims of an Agent (drivers.md §4): the private gateway state claim
 * `gateway-state-<h12>` and, in `dedicated` mode, the shared workspace claim `workspace-<h12>`.
 * Both are Agent-scoped: they survive every revision and go only with the Agent.
 *
 * A claim is created once and never patched: an existing claim is verified (markers, access
 * mode, size, storage class) and a mismatch is refused — resizing or re-classing storage is an
 * operator decision, not something a deploy may do silently.
 */
import type { ObjectMeta } from "../placement/k8s-objects.js";
import { hasMarkers, type Markers } from "../placement/markers.js";
import { decideWrite, type WriteDecision } from "../placement/write-decision.js";
import { quantityStringsEqual } from "../input/quantity.js";
import { agentObjectNames, workloadMarkers } from "./names.js";
import type { ExecutionModeValue, WorkloadImages } from "./inputs.js";
import { workloadNotDone, type WorkloadNotDone } from "./outcomes.js";

/** The one access mode OCC's claims use. */
export const CLAIM_ACCESS_MODES = ["ReadWriteOnce"] as const;

/** A PersistentVolumeClaim as the API server returns it (the fields read here). */
export interface PersistentVolumeClaim {
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly metadata?: ObjectMeta | undefined;
  readonly spec?:
    | {
        readonly accessModes?: readonly string[] | undefined;
        readonly resources?:
          { readonly requests?: Readonly<Record<string, string>> | undefined } | undefined;
        readonly storageClassName?: string | undefined;
      }
    | undefined;
}

/** One claim OCC wants. */
export interface ClaimSpec {
  readonly role: "gateway-state" | "workspace";
  readonly name: string;
  readonly markers: Markers;
  readonly size: string;
  readonly storageClassName: string | undefined;
}

/** The Agent's claims: the gateway state claim, and the workspace claim when dedicated. */
export function desiredClaims(input: {
  readonly tenantId: string;
  readonly agentId: string;
  readonly executionMode: ExecutionModeValue;
  readonly workloads: WorkloadImages;
}): readonly ClaimSpec[] {
  const names = agentObjectNames(input.agentId);
  const markers = workloadMarkers(input.tenantId, input.agentId, { scope: "agent" });
  const base = { markers, storageClassName: input.workloads.storageClassName };
  const state: ClaimSpec = {
    ...base,
    role: "gateway-state",
    name: names.gatewayState,
    size: input.workloads.gatewayStateSize,
  };
  if (input.executionMode !== "dedicated") return [state];
  return [
    state,
    { ...base, role: "workspace", name: names.workspace, size: input.workloads.workspaceSize },
  ];
}

/** The body that creates `spec` in `namespace`. */
export function renderClaim(spec: ClaimSpec, namespace: string): PersistentVolumeClaim {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: {
      name: spec.name,
      namespace,
      labels: spec.markers.labels,
      annotations: spec.markers.annotations,
    },
    spec: {
      accessModes: [...CLAIM_ACCESS_MODES],
      resources: { requests: { storage: spec.size } },
      ...(spec.storageClassName === undefined ? {} : { storageClassName: spec.storageClassName }),
    },
  };
}

/** How `observed` differs from the configuration (access mode, size, storage class). */
function claimProblems(observed: PersistentVolumeClaim, spec: ClaimSpec): readonly string[] {
  const problems: string[] = [];
  const modes = observed.spec?.accessModes ?? [];
  if (modes.length !== CLAIM_ACCESS_MODES.length || modes[0] !== CLAIM_ACCESS_MODES[0]) {
    problems.push(`access modes are not ${CLAIM_ACCESS_MODES.join(",")}`);
  }
  const size = observed.spec?.resources?.requests?.storage;
  if (size === undefined || !quantityStringsEqual(size, spec.size)) {
    problems.push(`requested size is not ${spec.size}`);
  }
  if (
    spec.storageClassName !== undefined &&
    observed.spec?.storageClassName !== spec.storageClassName
  ) {
    problems.push(`storage class is not ${spec.storageClassName}`);
  }
  return problems;
}

/**
 * What to do about one claim given what a read returned (`null`: absent), in the one write
 * vocabulary ({@link decideWrite}): `create`, `none` (it is exactly ours and as configured), or
 * stop — without the exact markers (never taken over), terminating (pending: recreated once
 * gone), or different from the configuration in access mode, size or storage class: where
 * another object would be updated, a claim is refused (never patched).
 */
export function claimDecision(
  observed: PersistentVolumeClaim | null,
  spec: ClaimSpec,
): WriteDecision<WorkloadNotDone> {
  const label = `PersistentVolumeClaim ${spec.name}`;
  const decision = decideWrite(observed, {
    owned: (o) => hasMarkers(o.metadata, spec.markers),
    notOwned: workloadNotDone(
      "KUBERNETES_OWNERSHIP_CONFLICT",
      `${label} exists without this Agent's exact ownership markers; OCC never takes over a claim`,
    ),
    terminating: workloadNotDone("WORKLOAD_DELETION_PENDING", `${label} is being deleted`),
    differs: (o) => claimProblems(o, spec).length > 0,
  });
  if (decision.action !== "update" || observed === null) return decision;
  return {
    action: "stop",
    result: workloadNotDone(
      "WORKLOAD_CLAIM_MISMATCH",
      `${label} differs from the configuration (${claimProblems(observed, spec).join("; ")}); OCC never patches a claim — fix or remove it`,
    ),
  };
}

/**
 * Teardown of one claim: `absent` (nothing to do), delete it by the UID just read, or refuse
 * (its markers are not exactly this Agent's — it is never deleted).
 */
export function claimTeardownStep(
  observed: PersistentVolumeClaim | null,
  spec: Pick<ClaimSpec, "name" | "markers">,
):
  | { readonly step: "absent" }
  | { readonly step: "delete"; readonly uid: string }
  | WorkloadNotDone {
  if (observed === null) return { step: "absent" };
  const uid = observed.metadata?.uid;
  if (!hasMarkers(observed.metadata, spec.markers) || uid === undefined) {
    return workloadNotDone(
      "KUBERNETES_OWNERSHIP_CONFLICT",
      `PersistentVolumeClaim ${spec.name} does not carry this Agent's exact ownership markers; it is not deleted`,
    );
  }
  return { step: "delete", uid };
}
