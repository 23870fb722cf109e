/**
 * A failed Kubernetes request of the tenant-object adapters, as the ports' closed set of
 * failures ({@link TenantObjectError}). The message is written here to be safe to show: it
 * names only the tenant's own bound namespace, never another tenant's objects or a stored value.
 */
import { TenantObjectError } from "../../tenant-objects.js";
import { isKubeError } from "../client/index.js";
import { TENANT_CLUSTER_ROLES } from "../rbac-rules.js";

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
