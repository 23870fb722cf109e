/**
 * The operator workspace resources declared in the Installation's OpenShell configuration
 * (preprovisioned.md §4), as they must exist in one tenant namespace: the declared manifest,
 * placed in that namespace and carrying the tenant ownership markers.
 *
 * The same function feeds the normal profile (OCC applies them), the preprovisioned profile
 * (OCC compares them) and `occ preprovisioned render` (the operator applies them), so the three
 * can never disagree about what a resource should look like.
 */
import type { Manifest, OpenShellSettings } from "../../config/installation-config.js";
import type { DeclaredPolicy } from "../../domain/index.js";
import { tenantOwnershipMarkers } from "../../domain/index.js";
import type { Kind } from "../kubernetes/client/index.js";
import { isRecord, oneOf } from "../../domain/input/unknowns.js";

/** The kinds a declared workspace resource may have. Never a Secret. */
export const WORKSPACE_RESOURCE_KINDS = [
  "ServiceAccount",
  "Role",
  "RoleBinding",
  "NetworkPolicy",
] as const satisfies readonly Kind[];

/** One of {@link WORKSPACE_RESOURCE_KINDS}. */
export type WorkspaceResourceKind = (typeof WORKSPACE_RESOURCE_KINDS)[number];

/** A declared resource ready for one namespace. */
export interface WorkspaceResource {
  readonly kind: WorkspaceResourceKind;
  readonly name: string;
  readonly object: Readonly<Record<string, unknown>>;
}

type Metadata = Readonly<Record<string, unknown>> & {
  readonly name?: unknown;
  readonly labels?: unknown;
  readonly annotations?: unknown;
};

function metadataOf(manifest: Manifest): Metadata {
  const metadata = manifest.metadata;
  return isRecord(metadata) ? metadata : {};
}

function fieldsOf(value: unknown): Readonly<Record<string, unknown>> {
  return isRecord(value) ? value : {};
}

/** The name of a declared manifest (validated as a non-empty string by the configuration). */
export function manifestName(manifest: Manifest): string {
  const name = metadataOf(manifest).name;
  return typeof name === "string" ? name : "";
}

/**
 * Every declared resource (`operatorWorkspaceResources`, then `networkPolicyResources`) placed
 * in `namespace` with the tenant ownership markers merged over its own metadata.
 */
export function workspaceResources(
  settings: OpenShellSettings,
  namespace: string,
  tenantId: string,
): readonly WorkspaceResource[] {
  const markers = tenantOwnershipMarkers(tenantId);
  return [...settings.operatorWorkspaceResources, ...settings.networkPolicyResources].map(
    (manifest) => {
      const metadata = metadataOf(manifest);
      const name = manifestName(manifest);
      const kind = oneOf(WORKSPACE_RESOURCE_KINDS, manifest.kind);
      if (kind === undefined) {
        throw new Error(
          `workspace resource ${name}: kind ${String(manifest.kind)} is not one of ${WORKSPACE_RESOURCE_KINDS.join(", ")}; fix the Installation's openshell resources`,
        );
      }
      return {
        kind,
        name,
        object: {
          ...manifest,
          metadata: {
            ...metadata,
            name,
            namespace,
            labels: { ...fieldsOf(metadata.labels), ...markers.labels },
            annotations: { ...fieldsOf(metadata.annotations), ...markers.annotations },
          },
        },
      };
    },
  );
}

/**
 * The declared operator NetworkPolicies, as the sealed-namespace check admits them: every
 * NetworkPolicy of `gateway.operatorWorkspaceResources` and of `gateway.networkPolicyResources`
 * (seed 001: the operator creates both; the OpenShell Driver requires both), each with the
 * configuration key that declares it.
 */
export function declaredPolicies(settings: OpenShellSettings | null): readonly DeclaredPolicy[] {
  if (settings === null) return [];
  const from = (list: readonly Manifest[], field: string): DeclaredPolicy[] =>
    list.flatMap((manifest, index) =>
      manifest.kind === "NetworkPolicy"
        ? [
            {
              name: manifestName(manifest),
              spec: manifest.spec ?? {},
              key: `openshell.gateway.${field}[${index}]`,
            },
          ]
        : [],
    );
  return [
    ...from(settings.operatorWorkspaceResources, "operatorWorkspaceResources"),
    ...from(settings.networkPolicyResources, "networkPolicyResources"),
  ];
}
