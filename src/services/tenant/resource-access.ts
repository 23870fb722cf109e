/**
 * The per-Namespace authorization preamble every resource service (Configurations, Secrets,
 * ServiceAccounts) shares, stated once from what differs between them: the permission kind
 * and the audit action prefix. The check order is the one in `access.ts`: authorize on the
 * Namespace first (no existence oracle), then look the Namespace up.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import type { PermissionAction, PermissionKind } from "../../iam/vocabulary.js";
import type { NamespaceRecord } from "../../store/namespaces.js";
import {
  recordingDenials,
  requirePermission,
  type AuditSubject,
  type Caller,
  type Grant,
} from "../authorization.js";
import { liveNamespace, type TenantServiceDeps } from "./access.js";

/** How one resource kind is authorized and audited on a Namespace. */
export interface ResourceAccess<A extends PermissionAction> {
  /** The audit subject of a mutation (`configurations.update` of `id`, kind `configuration`). */
  readonly subjectOf: (action: A, id: string) => AuditSubject & { readonly resourceId: string };
  /** Requires `<kind>:<action>` on the Namespace; a denial is audited against `id`. */
  readonly authorize: (
    deps: TenantServiceDeps,
    caller: Caller,
    namespaceId: NamespaceId,
    action: A,
    id?: string,
  ) => Promise<Grant>;
  /**
   * A read: authorizes `<kind>:read` (denials recorded), then finds the live Namespace (404)
   * and hands it to `fn`, outside any transaction.
   */
  readonly read: <T>(
    deps: TenantServiceDeps,
    caller: Caller,
    namespaceId: NamespaceId,
    id: string | undefined,
    fn: (ns: NamespaceRecord) => Promise<T>,
  ) => Promise<T>;
}

/**
 * The access rules of permission kind `kind`, whose audit actions are `<auditPrefix>.<action>`
 * and whose audit resource kind is `kind` itself.
 */
export function resourceAccess<A extends PermissionAction>(
  kind: PermissionKind,
  auditPrefix: string,
): ResourceAccess<A> {
  const subjectOf = <I extends string | undefined>(action: PermissionAction, resourceId: I) => ({
    action: `${auditPrefix}.${action}`,
    resourceKind: kind,
    resourceId,
  });
  const authorize = (
    deps: TenantServiceDeps,
    caller: Caller,
    namespaceId: NamespaceId,
    action: PermissionAction,
    id?: string,
  ): Promise<Grant> =>
    requirePermission(
      deps.db,
      caller,
      { permission: { action, kind }, namespaceId },
      subjectOf(action, id),
    );
  return {
    subjectOf,
    authorize,
    read: (deps, caller, namespaceId, id, fn) =>
      recordingDenials(deps.db, caller, async () => {
        await authorize(deps, caller, namespaceId, "read", id);
        return fn(await liveNamespace(deps.db, namespaceId));
      }),
  };
}
