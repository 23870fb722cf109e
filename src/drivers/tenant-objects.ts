/**
 * What the Configuration and Secret Driver ports share (drivers.md §1–2): the tenant's
 * placement as OCC recorded it, the bound namespace a resolution verified, the pin OCC keeps
 * of each object it wrote, and the closed set of ways an operation fails. Nothing here knows
 * Kubernetes' wire format; the bundled adapter is `kubernetes/tenant/`.
 */
import { sanitizeReason } from "../domain/input/reason.js";
import type { NamespaceId } from "../domain/placement/ids.js";
import type { Placement } from "../domain/placement/placement.js";

/** How a tenant is placed and what OCC recorded of its binding. */
export interface TenantPlacement {
  readonly tenantId: NamespaceId;
  readonly placement: Placement;
  /** The bound namespace's name and UID as recorded on the platform Namespace, if bound. */
  readonly recordedName: string | null;
  readonly recordedUid: string | null;
}

/** The namespace a tenant's objects live in, as verified just now (never cached). */
export interface BoundNamespace {
  readonly name: string;
  readonly uid: string;
}

/** An object as OCC recorded it after writing it. */
export interface PinnedObject {
  readonly kubernetesNamespace: string;
  readonly namespaceUid: string;
  readonly objectName: string;
  readonly objectUid: string;
  readonly resourceVersion: string;
}

export const TENANT_OBJECT_FAILURES = [
  /** Resolution failed closed, or an object is not the one OCC wrote (never repaired). */
  "ownership",
  /** The managed namespace does not exist yet (the worker is still provisioning it). */
  "namespace-missing",
  /** Kubernetes 403: the API RoleBinding is missing in the tenant namespace. */
  "permission-missing",
  /** Unreachable, timeout, 429, 5xx, or another unexpected answer. */
  "unavailable",
] as const;
export type TenantObjectFailure = (typeof TENANT_OBJECT_FAILURES)[number];

/**
 * A refused or failed tenant-object operation, as a closed set (drivers.md: "Kubernetes
 * errors reach the API as 503 … never as 500"). `message` is safe to return to the caller: it
 * names only the tenant's own bound namespace, never another tenant's objects or a stored value.
 */
export class TenantObjectError extends Error {
  override readonly name = "TenantObjectError";
  constructor(
    readonly reason: TenantObjectFailure,
    message: string,
    opts: { readonly cause?: unknown } = {},
  ) {
    super(sanitizeReason(message), opts.cause === undefined ? undefined : { cause: opts.cause });
  }
}

/**
 * What an operation does with the tenant's objects: a `read` may take the absence of a second
 * claimant from the API's claimant index (the bound namespace itself is still read afresh); a
 * `write` lists every claimant afresh.
 */
export type TenantAccess = "read" | "write";

/**
 * What both tenant-object ports start every operation with: the tenant's bound namespace,
 * resolved and verified now in the process's profile for `access`; every doubt throws a
 * {@link TenantObjectError} (`ownership`, `namespace-missing`, …), never a fallback.
 */
export interface BoundNamespaceResolver {
  resolve(tenant: TenantPlacement, access: TenantAccess): Promise<BoundNamespace>;
}
