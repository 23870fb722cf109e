import { tenantOwnershipMarkers, type NotDone } from "../../../domain/index.js";
import type { TenantRoleBindingSubjects } from "../../../config/installation-config.js";
import type { ObjectClient } from "../client/index.js";
import { isKubeError } from "../client/index.js";
import { ownedTenantRoleBinding, type RbacObject } from "../rbac-objects.js";
import { outcomeOfKubeError } from "./failures.js";
import { mayWriteTenantObjects } from "./tenant-permission.js";

/** How long a pass waits for a RoleBinding it just created to take effect, and how often it asks. */
const EFFECT_WAIT_MS = 3_000;
const EFFECT_POLL_MS = 100;

/**
 * Managed placement with the admission policies (issue 17): the worker binds the tenant roles
 * in the managed namespace it created — `openclaw-enterprise-tenant-worker` to the worker and
 * `openclaw-enterprise-tenant-api` to the API — as objects carrying the tenant ownership
 * markers. A RoleBinding of that name that already exists is left as it is (the worker's own
 * from an earlier pass, or one the operator made before the upgrade): nothing is written, and
 * if it does not grant what is needed, the following requests answer 403 and the pass reports
 * the missing permission as before. After creating one, the pass waits briefly until the RBAC
 * authorizer applies it, so a new namespace becomes ready in the same pass.
 */
export async function ensureTenantRoleBindings(
  client: ObjectClient,
  tenantId: string,
  namespace: string,
  subjects: TenantRoleBindingSubjects,
): Promise<NotDone | null> {
  const markers = tenantOwnershipMarkers(tenantId);
  let created = false;
  for (const role of ["worker", "api"] as const) {
    const desired: RbacObject = ownedTenantRoleBinding(namespace, role, subjects[role], markers);
    const name = desired.metadata.name;
    try {
      if ((await client.find("RoleBinding", { name, namespace })) !== undefined) continue;
      await client.create("RoleBinding", desired);
      created = true;
    } catch (err) {
      if (isKubeError(err, "conflict") && err.reason === "AlreadyExists") continue;
      return outcomeOfKubeError(
        err,
        "after-verification",
        `bind the tenant ${role} role`,
        namespace,
      );
    }
  }
  if (created) await untilPermitted(client, namespace);
  return null;
}

/** Polls the access review until the new RoleBinding is in effect, or the wait is over. */
async function untilPermitted(client: ObjectClient, namespace: string): Promise<void> {
  const deadline = Date.now() + EFFECT_WAIT_MS;
  while (Date.now() < deadline) {
    try {
      if (await mayWriteTenantObjects(client, namespace)) return;
    } catch (err) {
      // A failed review only ends the wait: the next request reports any missing permission.
      if (!isKubeError(err)) throw err;
      return;
    }
    await new Promise((r) => setTimeout(r, EFFECT_POLL_MS));
  }
}
