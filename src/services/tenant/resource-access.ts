/**
 * What every Namespace resource service (Configurations, Secrets, ServiceAccounts, Agents,
 * AgentRevisions) shares, stated once from what differs between them: the call on a
 * Namespace, and the authorization and audit of a kind — its permission kind and audit action
 * prefix. The check order is the one in `access.ts`: authorize on the Namespace first (no
 * existence oracle), then look the Namespace up.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import type { PermissionAction, PermissionKind } from "../../domain/iam/vocabulary.js";
import type { JsonObject } from "../../store/columns.js";
import type { Queryable } from "../../store/db.js";
import type { NamespaceRecord } from "../../store/namespaces.js";
import type {
  NamespaceRows,
  ResourcePage,
  ResourcePageOptions,
} from "../../store/resource-paging.js";
import { ServiceError } from "../errors.js";
import { recordMutation, recordingDenials, requirePermission } from "../authorization.js";
import type { AuditSubject, Caller } from "../authorization.js";
import { liveNamespace, type TenantServiceDeps } from "./access.js";

/** One service call on a Namespace's resources: the process's deps, who asks, and where. */
export interface NamespaceCall<D extends TenantServiceDeps = TenantServiceDeps> {
  readonly deps: D;
  readonly caller: Caller;
  readonly namespaceId: NamespaceId;
}

/**
 * The use cases of one Namespace resource kind, as the routes call them. `R` is the resource
 * as a service returns it, `C` and `U` the create and update bodies (a kind without updates
 * has no `update`), `D` the deps its calls need.
 */
export interface ResourceService<
  R,
  C,
  U = unknown,
  D extends TenantServiceDeps = TenantServiceDeps,
> {
  readonly create: (call: NamespaceCall<D>, body: C) => Promise<R>;
  readonly list: (call: NamespaceCall<D>, opts: ResourcePageOptions) => Promise<ResourcePage<R>>;
  readonly read: (call: NamespaceCall<D>, id: string) => Promise<R>;
  readonly update?: (call: NamespaceCall<D>, id: string, body: U) => Promise<R>;
  readonly remove: (call: NamespaceCall<D>, id: string) => Promise<void>;
}

/**
 * The lookup of `rows` that answers 404 `No such <noun>.` when the Namespace has no such row;
 * `forUpdate` locks the row until the transaction ends.
 */
export function foundIn<R>(rows: NamespaceRows<R>, noun: string) {
  return async (q: Queryable, namespaceId: NamespaceId, id: string, forUpdate = false) => {
    const row = await rows.get(q, namespaceId, id, { forUpdate });
    if (row === undefined) throw new ServiceError("NOT_FOUND", `No such ${noun}.`);
    return row;
  };
}

/**
 * The read and list of a kind whose reads are its rows alone (ServiceAccounts, Agents): after
 * `<kind>:read` on the live Namespace, the row (404 `No such <noun>.`) or one page of rows.
 */
export function rowReads<R>(
  access: Pick<ResourceAccess<"read">, "read">,
  rows: NamespaceRows<R>,
  noun: string,
): Pick<ResourceService<R, never>, "read" | "list"> {
  const found = foundIn(rows, noun);
  return {
    read: (call, id) => access.read(call, id, (ns) => found(call.deps.db, ns.id, id)),
    list: (call, opts) =>
      access.read(call, undefined, (ns) => rows.list(call.deps.db, ns.id, opts)),
  };
}

/** Appends the success event of a write on resource `id`, in the write's transaction `tx`. */
export type Audit = (tx: Queryable, id: string, details: JsonObject) => Promise<void>;

/** How one resource kind is authorized and audited on a Namespace. */
export interface ResourceAccess<A extends PermissionAction> {
  /**
   * A read: authorizes `<kind>:read` (denials recorded against `id`), then finds the live
   * Namespace (404) and hands it to `fn`, outside any transaction.
   */
  readonly read: <T>(
    call: NamespaceCall,
    id: string | undefined,
    fn: (ns: NamespaceRecord) => Promise<T>,
  ) => Promise<T>;
  /**
   * A write: authorizes `<kind>:<action>` (denials recorded against `id`), then runs `fn`,
   * which records its success with `audit` (the event carries the grant as evidence).
   */
  readonly write: <T>(
    call: NamespaceCall,
    action: A,
    id: string | undefined,
    fn: (audit: Audit) => Promise<T>,
  ) => Promise<T>;
}

/**
 * The access rules of permission kind `kind`, whose audit actions are `<auditPrefix>.<action>`
 * (`configurations.update`) and whose audit resource kind is `kind` itself.
 */
export function resourceAccess<A extends PermissionAction>(
  kind: PermissionKind,
  auditPrefix: string,
): ResourceAccess<A> {
  const subjectOf = <I extends string | undefined>(
    action: PermissionAction,
    resourceId: I,
  ): AuditSubject & { readonly resourceId: I } => ({
    action: `${auditPrefix}.${action}`,
    resourceKind: kind,
    resourceId,
  });
  const authorize = (
    { deps, caller, namespaceId }: NamespaceCall,
    action: PermissionAction,
    id: string | undefined,
  ) =>
    requirePermission(
      deps.db,
      caller,
      { permission: { action, kind }, namespaceId },
      subjectOf(action, id),
    );
  return {
    read: (call, id, fn) =>
      recordingDenials(call.deps.db, call.caller, async () => {
        await authorize(call, "read", id);
        return fn(await liveNamespace(call.deps.db, call.namespaceId));
      }),
    write: (call, action, id, fn) =>
      recordingDenials(call.deps.db, call.caller, async () => {
        const grant = await authorize(call, action, id);
        return fn((tx, resourceId, details) =>
          recordMutation(tx, call.caller, subjectOf(action, resourceId), grant, details),
        );
      }),
  };
}
