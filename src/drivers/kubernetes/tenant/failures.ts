/**
 * How an operation on a tenant's objects failed, as a closed set (drivers.md: "Kubernetes
 * errors reach the API as 503 `DEPENDENCY_UNAVAILABLE` … never as 500"). The API maps every
 * reason to 503 with the message, which is written here to be safe to show: it names only the
 * tenant's own bound namespace, never another tenant's objects, and never a stored value.
 */
import { sanitizeReason } from "../../../domain/input/reason.js";
import { isKubeError } from "../client/index.js";
import { TENANT_CLUSTER_ROLES } from "../rbac-rules.js";

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

/** A refused or failed tenant-object operation; `message` is safe to return to the caller. */
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
 * Turns a failed Kubernetes request into a {@link TenantObjectError}; anything that is not a
 * Kubernetes answer is a programming error and is rethrown. `namespace` is the tenant's own
 * bound namespace, safe to name.
 */
export function tenantKubeFailure(err: unknown, what: string, namespace?: string): never {
  if (err instanceof TenantObjectError) throw err;
  if (!isKubeError(err)) throw err;
  if (err.category === "forbidden") {
    throw new TenantObjectError(
      "permission-missing",
      `The API may not ${what} in Kubernetes namespace ${namespace ?? "(cluster)"}: grant the API RoleBinding (ClusterRole ${TENANT_CLUSTER_ROLES.api}) there; no restart is needed.`,
      { cause: err },
    );
  }
  const answer = err.status !== undefined ? `answered ${err.status}` : `failed (${err.category})`;
  throw new TenantObjectError("unavailable", `Kubernetes ${answer} to ${what}; retry later.`, {
    cause: err,
  });
}
