/**
 * The ServiceAccount services (drivers.md §3): records only, no Kubernetes object until an
 * Agent uses one. Authorize `service_account:<action>` on the Namespace first, then look up
 * (404), then state (a `failed` or `deleting` Namespace takes no new records: 409). A
 * credential's `secretRef` must name a Secret of the same Namespace (400 otherwise).
 */
import { refuseWhileAgentsReference } from "../tenant/in-use.js";
import type { NamespaceId } from "../../domain/placement/ids.js";
import { newTenantResourceId } from "../../domain/tenant/resources.js";
import type { ResourcePage, ResourcePageOptions } from "../../store/resource-paging.js";
import { getSecret } from "../../store/secrets.js";
import {
  deleteServiceAccountRow,
  getServiceAccount,
  insertServiceAccount,
  listServiceAccounts,
  type ServiceAccountRecord,
} from "../../store/service-accounts.js";
import { recordMutation, recordingDenials, type Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";
import { liveNamespace, requireWritable, type TenantServiceDeps } from "../tenant/access.js";
import { resourceAccess } from "../tenant/resource-access.js";
import type { CreateServiceAccountBody } from "../../contract/service-accounts.js";

const access = resourceAccess<"create" | "read" | "delete">("service_account", "service_accounts");

export function createServiceAccount(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  body: CreateServiceAccountBody,
): Promise<ServiceAccountRecord> {
  return recordingDenials(deps.db, caller, async () => {
    const grant = await access.authorize(deps, caller, namespaceId, "create");
    return deps.db.transaction(async (tx) => {
      const ns = await liveNamespace(tx, namespaceId, { lock: true });
      requireWritable(ns, { recordsOnly: true });
      const credential = body.credential;
      if (
        credential !== undefined &&
        (await getSecret(tx, namespaceId, credential.secretRef)) === undefined
      ) {
        throw new ServiceError(
          "INVALID_REQUEST",
          "credential.secretRef names no Secret of this Namespace.",
          {
            details: [{ path: "/body/credential/secretRef", code: "invalid_value" }],
          },
        );
      }
      const id = newTenantResourceId("serviceAccount");
      const inserted = await insertServiceAccount(tx, {
        id,
        namespaceId,
        name: body.name,
        credential:
          credential === undefined
            ? null
            : { kind: credential.kind, secretId: credential.secretRef },
      });
      if (inserted.outcome === "name_in_use") {
        throw new ServiceError(
          "RESOURCE_CONFLICT",
          "A ServiceAccount with this name already exists in the Namespace.",
        );
      }
      await recordMutation(tx, caller, access.subjectOf("create", id), grant, {
        namespaceId,
        name: body.name,
      });
      return inserted.serviceAccount;
    });
  });
}

export function readServiceAccount(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  id: string,
): Promise<ServiceAccountRecord> {
  return access.read(deps, caller, namespaceId, id, async () => {
    const found = await getServiceAccount(deps.db, namespaceId, id);
    if (found === undefined) throw new ServiceError("NOT_FOUND", "No such ServiceAccount.");
    return found;
  });
}

export function listNamespaceServiceAccounts(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  opts: ResourcePageOptions,
): Promise<ResourcePage<ServiceAccountRecord>> {
  return access.read(deps, caller, namespaceId, undefined, () =>
    listServiceAccounts(deps.db, namespaceId, opts),
  );
}

export function deleteServiceAccount(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  id: string,
): Promise<void> {
  return recordingDenials(deps.db, caller, async () => {
    const grant = await access.authorize(deps, caller, namespaceId, "delete", id);
    await deps.db.transaction(async (tx) => {
      await liveNamespace(tx, namespaceId, { lock: true });
      await refuseWhileAgentsReference(tx, namespaceId, { serviceAccountId: id }, "ServiceAccount");
      if (!(await deleteServiceAccountRow(tx, namespaceId, id))) {
        throw new ServiceError("NOT_FOUND", "No such ServiceAccount.");
      }
      await recordMutation(tx, caller, access.subjectOf("delete", id), grant, {
        namespaceId,
      });
    });
  });
}
