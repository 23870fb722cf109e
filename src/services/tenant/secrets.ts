/**
 * The Secret services (drivers.md §2), in the same check order as Configurations:
 * authorize `secret:<action>` on the Namespace, look up (404), require the Namespace `ready`
 * for writes (409 `NAMESPACE_NOT_READY`), resolve the bound namespace afresh, then touch the
 * Kubernetes Secret and the metadata in one compensated transaction.
 *
 * The value is handed to the driver and nothing else: audit details hold IDs and the name,
 * errors are the driver's fixed messages, and nothing here logs.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import { newTenantResourceId } from "../../domain/tenant/resources.js";
import type { Queryable } from "../../store/db.js";
import type { ResourcePage, ResourcePageOptions } from "../../store/resource-paging.js";
import {
  deleteSecretRow,
  getSecret,
  insertSecret,
  listSecrets,
  recordSecretUpdate,
  secretInUse,
  secretNameTaken,
  type SecretRecord,
} from "../../store/secrets.js";
import { recordMutation, recordingDenials, type Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";
import {
  compensatedTransaction,
  driverStep,
  driversOf,
  liveNamespace,
  requireWritable,
  tenantPlacementOf,
  type TenantServiceDeps,
} from "../tenant/access.js";
import { resourceAccess } from "../tenant/resource-access.js";
import type { CreateSecretBody, UpdateSecretBody } from "../../contract/secrets.js";

const NAME_IN_USE = "A Secret with this name already exists in the Namespace.";

const access = resourceAccess<"create" | "read" | "update" | "delete">("secret", "secrets");

const driverOf = (deps: TenantServiceDeps) => driversOf(deps).secrets;

async function found(q: Queryable, ns: NamespaceId, id: string, forUpdate = false) {
  const row = await getSecret(q, ns, id, { forUpdate });
  if (row === undefined) throw new ServiceError("NOT_FOUND", "No such Secret.");
  return row;
}

export function createSecret(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  body: CreateSecretBody,
): Promise<SecretRecord> {
  return recordingDenials(deps.db, caller, async () => {
    const grant = await access.authorize(deps, caller, namespaceId, "create");
    const id = newTenantResourceId("secret");
    return compensatedTransaction(deps, async (tx, onRollback) => {
      const ns = await liveNamespace(tx, namespaceId, { lock: true });
      requireWritable(ns);
      if (await secretNameTaken(tx, namespaceId, body.name)) {
        throw new ServiceError("RESOURCE_CONFLICT", NAME_IN_USE);
      }
      const driver = driverOf(deps);
      const bound = await driver.resolve(tenantPlacementOf(ns));
      const pin = await driver.create(bound, namespaceId, id, body.value);
      onRollback(() => driver.delete(pin.kubernetesNamespace, pin));
      const inserted = await insertSecret(tx, { ...pin, id, namespaceId, name: body.name });
      if (inserted.outcome === "name_in_use")
        throw new ServiceError("RESOURCE_CONFLICT", NAME_IN_USE);
      await recordMutation(tx, caller, access.subjectOf("create", id), grant, {
        namespaceId,
        name: body.name,
      });
      return inserted.secret;
    });
  });
}

export function readSecret(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  id: string,
): Promise<SecretRecord> {
  return access.read(deps, caller, namespaceId, id, async (ns) => {
    const record = await found(deps.db, namespaceId, id);
    const driver = driverOf(deps);
    await driverStep(async () =>
      driver.verify(await driver.resolve(tenantPlacementOf(ns)), namespaceId, record),
    );
    return record;
  });
}

export function listNamespaceSecrets(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  opts: ResourcePageOptions,
): Promise<ResourcePage<SecretRecord>> {
  return access.read(deps, caller, namespaceId, undefined, async (ns) => {
    const page = await listSecrets(deps.db, namespaceId, opts);
    const driver = driverOf(deps);
    await driverStep(async () =>
      driver.verifyAll(await driver.resolve(tenantPlacementOf(ns)), namespaceId, page.items),
    );
    return page;
  });
}

export function updateSecret(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  id: string,
  body: UpdateSecretBody,
): Promise<SecretRecord> {
  return recordingDenials(deps.db, caller, async () => {
    const grant = await access.authorize(deps, caller, namespaceId, "update", id);
    return compensatedTransaction(deps, async (tx, onRollback) => {
      const ns = await liveNamespace(tx, namespaceId, { lock: true });
      const current = await found(tx, namespaceId, id, true);
      requireWritable(ns);
      const driver = driverOf(deps);
      const bound = await driver.resolve(tenantPlacementOf(ns));
      const previous = await driver.verify(bound, namespaceId, current);
      const written = await driver.update(bound, namespaceId, current, body.value);
      onRollback(async () => {
        await driver.restore(bound, namespaceId, id, previous, written);
      });
      const record = await recordSecretUpdate(tx, id, written.resourceVersion);
      await recordMutation(tx, caller, access.subjectOf("update", id), grant, {
        namespaceId,
        version: record.version,
      });
      return record;
    });
  });
}

export function deleteSecret(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  id: string,
): Promise<void> {
  return recordingDenials(deps.db, caller, async () => {
    const grant = await access.authorize(deps, caller, namespaceId, "delete", id);
    await compensatedTransaction(deps, async (tx) => {
      const ns = await liveNamespace(tx, namespaceId, { lock: true });
      const current = await found(tx, namespaceId, id, true);
      if (await secretInUse(tx, id)) {
        throw new ServiceError(
          "RESOURCE_CONFLICT",
          "A ServiceAccount uses this Secret as its credential; delete it first.",
        );
      }
      const driver = driverOf(deps);
      const bound = await driver.resolve(tenantPlacementOf(ns));
      await driver.verify(bound, namespaceId, current);
      await deleteSecretRow(tx, id);
      await recordMutation(tx, caller, access.subjectOf("delete", id), grant, {
        namespaceId,
      });
      await driver.delete(bound.name, current);
    });
  });
}
