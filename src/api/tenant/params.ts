/**
 * The typed Namespace ID of a path under `/namespaces/{id}/…` the schema already checked, and
 * the paging-cursor guard of tenant resource IDs.
 */
import { isPreprovisionedNamespaceId, type NamespaceId } from "../../domain/placement/ids.js";
import { tenantResourceIdPattern, type TenantResourceKind } from "../../domain/tenant/resources.js";

/** The Namespace ID of a path the schema already checked. */
export function namespaceIdOf(params: { readonly id: string }): NamespaceId {
  if (!isPreprovisionedNamespaceId(params.id))
    throw new Error("schema admitted a bad Namespace ID");
  return params.id;
}

/** A guard for paging cursors over resources of `kind`. */
export function isResourceId(kind: TenantResourceKind): (v: unknown) => v is string {
  const pattern = tenantResourceIdPattern(kind);
  return (v: unknown): v is string => typeof v === "string" && pattern.test(v);
}
