/**
 * The OpenShell gateway's service definition, loaded from the repository's `.proto`
 * (`proto/openshell/v1/openshell.proto`), and the plain shapes its messages take in
 * JavaScript. Shared by the product's client and the tests' in-process gateway, so both speak
 * exactly the same definition.
 */
import { fileURLToPath } from "node:url";
import { loadPackageDefinition, type GrpcObject, type ServiceDefinition } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";

/** The `.proto` file, relative to this module in both `src/` and `dist/`. */
export const OPENSHELL_PROTO = fileURLToPath(
  new URL("../../../proto/openshell/v1/openshell.proto", import.meta.url),
);

/** Enum values as strings, 64-bit as strings, defaults filled in: the client's plain view. */
const LOADER_OPTIONS = {
  keepCase: false,
  enums: String,
  longs: String,
  defaults: true,
  oneofs: true,
} as const;

/** The `openshell.v1.OpenShell` service definition. */
export function openShellService(): ServiceDefinition {
  const definition = loadPackageDefinition(loadSync(OPENSHELL_PROTO, LOADER_OPTIONS));
  const service = member(member(definition.openshell, "v1"), "OpenShell");
  if (typeof service !== "function") {
    throw new Error(`${OPENSHELL_PROTO} defines no service openshell.v1.OpenShell`);
  }
  return service.service;
}

/** Member `key` of a loaded package (a namespace), `undefined` for a service or a message. */
function member(node: GrpcObject[string] | undefined, key: string): GrpcObject[string] | undefined {
  if (node === undefined || typeof node === "function" || "format" in node) return undefined;
  return node[key];
}

export type WorkspacePhase =
  "WORKSPACE_PHASE_UNSPECIFIED" | "WORKSPACE_PHASE_ACTIVE" | "WORKSPACE_PHASE_TERMINATING";

export type DeleteOutcome =
  | "DELETE_OUTCOME_UNSPECIFIED"
  | "DELETE_OUTCOME_COMPLETED"
  | "DELETE_OUTCOME_ACCEPTED"
  | "DELETE_OUTCOME_ALREADY_ABSENT";

export type ServiceStatus =
  | "SERVICE_STATUS_UNSPECIFIED"
  | "SERVICE_STATUS_HEALTHY"
  | "SERVICE_STATUS_DEGRADED"
  | "SERVICE_STATUS_UNHEALTHY";

/** `openshell.v1.Workspace` as decoded. */
export interface WorkspaceMessage {
  readonly metadata: {
    readonly id: string;
    readonly name: string;
    readonly labels: Readonly<Record<string, string>>;
  } | null;
  readonly status: { readonly phase: WorkspacePhase } | null;
}

export interface HealthResponseMessage {
  readonly status: ServiceStatus;
  readonly version: string;
}
export interface GetWorkspaceRequestMessage {
  readonly name: string;
}
export interface CreateWorkspaceRequestMessage {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}
export interface WorkspaceResponseMessage {
  readonly workspace: WorkspaceMessage | null;
}
export interface DeleteWorkspaceRequestMessage {
  readonly name: string;
  readonly allowMissing: boolean;
}
export interface DeleteWorkspaceResponseMessage {
  readonly outcome: DeleteOutcome;
}
