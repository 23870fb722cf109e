/**
 * The ServiceAccount services (drivers.md §3): records only, no Kubernetes object until an
 * Agent uses one. Authorize `service_account:<action>` on the Namespace first, then look up
 * (404), then state (a `failed` or `deleting` Namespace takes no new records: 409). A
 * credential's `secretRef` must name a Secret of the same Namespace (400 otherwise).
 */
import { refuseWhileAgentsReference } from "../tenant/in-use.js";
import { newTenantResourceId } from "../../domain/tenant/resources.js";
import { secretRows } from "../../store/secrets.js";
import {
  deleteServiceAccountRow,
  insertServiceAccount,
  serviceAccountRows,
  type ServiceAccountRecord,
} from "../../store/service-accounts.js";
import { requireNameFree, ServiceError } from "../errors.js";
import { liveNamespace, requireWritable } from "../tenant/access.js";
import { resourceAccess, rowReads, type ResourceService } from "./resource-access.js";
import type { CreateServiceAccountBody } from "../../contract/service-accounts.js";

const access = resourceAccess<"create" | "read" | "delete">("service_account", "service_accounts");

export const serviceAccounts: ResourceService<ServiceAccountRecord, CreateServiceAccountBody> = {
  create: (call, body) =>
    access.write(call, "create", undefined, (audit) =>
      call.deps.db.transaction(async (tx) => {
        const ns = await liveNamespace(tx, call.namespaceId, { lock: true });
        requireWritable(ns, { recordsOnly: true });
        const credential = body.credential;
        if (
          credential !== undefined &&
          (await secretRows.get(tx, ns.id, credential.secretRef)) === undefined
        ) {
          throw new ServiceError(
            "INVALID_REQUEST",
            "credential.secretRef names no Secret of this Namespace.",
            { details: [{ path: "/body/credential/secretRef", code: "invalid_value" }] },
          );
        }
        const id = newTenantResourceId("serviceAccount");
        const inserted = await insertServiceAccount(tx, {
          id,
          namespaceId: ns.id,
          name: body.name,
          credential:
            credential === undefined
              ? null
              : { kind: credential.kind, secretId: credential.secretRef },
        });
        requireNameFree(
          inserted,
          "A ServiceAccount with this name already exists in the Namespace.",
        );
        await audit(tx, id, { namespaceId: ns.id, name: body.name });
        return inserted.serviceAccount;
      }),
    ),

  ...rowReads(access, serviceAccountRows, "ServiceAccount"),

  remove: (call, id) =>
    access.write(call, "delete", id, (audit) =>
      call.deps.db.transaction(async (tx) => {
        const { namespaceId } = call;
        await liveNamespace(tx, namespaceId, { lock: true });
        await refuseWhileAgentsReference(
          tx,
          namespaceId,
          { serviceAccountId: id },
          "ServiceAccount",
        );
        if (!(await deleteServiceAccountRow(tx, namespaceId, id))) {
          throw new ServiceError("NOT_FOUND", "No such ServiceAccount.");
        }
        await audit(tx, id, { namespaceId });
      }),
    ),
};
