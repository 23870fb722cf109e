/**
 * Path parameters shared by every route under `/namespaces/{id}/…`, and the typed Namespace ID
 * of a path the schema already checked.
 */
import { Type } from "@sinclair/typebox";
import { isPreprovisionedNamespaceId, type NamespaceId } from "../../domain/placement/ids.js";
import { tenantResourceIdPattern, type TenantResourceKind } from "../../domain/tenant/resources.js";
import { NamespaceIdSchema } from "../../contract/namespaces.js";

export const NamespaceScopedParamsSchema = Type.Object(
  { id: NamespaceIdSchema },
  { additionalProperties: false },
);

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
