/**
 * Names, keys and scopes of the Kubernetes objects an Agent owns in its tenant namespace
 * (drivers.md §4). Object names carry hashes of the IDs (placement.md §2): Agent-scoped
 * objects `h(agentId, 12)`, revision-scoped ones `h(revisionId, 12)`. Labels carry raw IDs.
 */
import {
  agentOwnershipMarkers,
  revisionOwnershipMarkers,
  type Markers,
} from "../placement/markers.js";
import { h } from "../placement/naming.js";

/** The kinds an Agent's workload consists of. */
export const WORKLOAD_KINDS = [
  "Deployment",
  "Service",
  "ServiceAccount",
  "ConfigMap",
  "Secret",
  "NetworkPolicy",
  "PersistentVolumeClaim",
] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** Revision-scoped kinds: what retiring a revision removes. */
export const REVISION_SCOPED_KINDS = ["Deployment", "ConfigMap", "Secret"] as const;

/** Keys OCC adds on workload objects beyond the ownership markers. */
export const WORKLOAD_KEYS = {
  /** Annotation: a hash of the desired object; a differing hash means "write". */
  specHash: "openclaw.dev/spec-hash",
  /** Annotation on the gateway Deployment and its pods: the revision it serves. */
  activeRevision: "openclaw.dev/active-revision",
} as const;

/** Values of `openclaw.dev/workload-role`. */
export const WORKLOAD_ROLES = { gateway: "gateway", harness: "harness" } as const;

/** Where the revision's configuration and the gateway state are mounted. */
export const WORKLOAD_PATHS = {
  config: "/etc/openclaw",
  configFile: "openclaw.json",
  state: "/var/lib/openclaw",
  workspace: "/workspace",
} as const;

/** The data key of the credentials Secret: the gateway's token for its harness and clients. */
export const GATEWAY_TOKEN_KEY = "gateway-token";

/** The data key of the credentials Secret holding the ServiceAccount's provider credential. */
export const PROVIDER_CREDENTIAL_KEY = "provider-credential";

/** The names of the Agent-scoped objects: they live as long as the Agent. */
export interface AgentObjectNames {
  readonly gateway: string;
  readonly gatewayState: string;
  readonly workspace: string;
  readonly egressPolicy: string;
}

/** The names of one revision's own objects. */
export interface RevisionObjectNames {
  readonly config: string;
  readonly credentials: string;
  readonly harness: string;
}

/** The names of every object of one Agent and one of its revisions. */
export type WorkloadNames = AgentObjectNames & RevisionObjectNames;

/** `gateway-<h12(agentId)>`, `gateway-state-<h12>`, `workspace-<h12>`, `agent-egress-<h12>`. */
export function agentObjectNames(agentId: string): AgentObjectNames {
  const a = h(agentId, 12);
  return {
    gateway: `gateway-${a}`,
    gatewayState: `gateway-state-${a}`,
    workspace: `workspace-${a}`,
    egressPolicy: `agent-egress-${a}`,
  };
}

/** `agent-config-<h12(revisionId)>`, `agent-credentials-<h12>`, `harness-<h12>`. */
export function revisionObjectNames(revisionId: string): RevisionObjectNames {
  const r = h(revisionId, 12);
  return {
    config: `agent-config-${r}`,
    credentials: `agent-credentials-${r}`,
    harness: `harness-${r}`,
  };
}

/** Both: what one revision pass renders. */
export function workloadNames(agentId: string, revisionId: string): WorkloadNames {
  return { ...agentObjectNames(agentId), ...revisionObjectNames(revisionId) };
}

/** Which markers an object carries: the Agent's, or the Agent's plus one revision's. */
export type WorkloadScope =
  { readonly scope: "agent" } | { readonly scope: "revision"; readonly revisionId: string };

/** The exact markers of an object of `scope` (placement.md §2). */
export function workloadMarkers(tenantId: string, agentId: string, scope: WorkloadScope): Markers {
  return scope.scope === "agent"
    ? agentOwnershipMarkers(tenantId, agentId)
    : revisionOwnershipMarkers(tenantId, agentId, scope.revisionId);
}
