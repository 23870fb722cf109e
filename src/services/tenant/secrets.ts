/**
 * The Secret services (drivers.md §2), in the same check order as Configurations:
 * authorize `secret:<action>` on the Namespace, look up (404), require the Namespace `ready`
 * for writes (409 `NAMESPACE_NOT_READY`), resolve the bound namespace afresh, then touch the
 * Kubernetes Secret and the metadata in one compensated transaction.
 *
 * The value is handed to the driver and nothing else: audit details hold IDs and the name,
 * errors are the driver's fixed messages, and nothing here logs.
 */
import { newTenantResourceId } from "../../domain/tenant/resources.js";
import {
  deleteSecretRow,
  insertSecret,
  secretRows,
  recordSecretUpdate,
  secretInUse,
  secretNameTaken,
} from "../../store/secrets.js";
import type { SecretRecord } from "../../store/secrets.js";
import { requireNameFree, ServiceError } from "../errors.js";
import { boundDriver, driverStep, namespaceTransaction, requireWritable } from "./access.js";
import { foundIn, resourceAccess } from "../tenant/resource-access.js";
import type { ResourceService } from "../tenant/resource-access.js";
import type { CreateSecretBody, UpdateSecretBody } from "../../contract/secrets.js";

const NAME_IN_USE = "A Secret with this name already exists in the Namespace.";

const access = resourceAccess<"create" | "read" | "update" | "delete">("secret", "secrets");

const found = foundIn(secretRows, "Secret");

export const secrets: ResourceService<SecretRecord, CreateSecretBody, UpdateSecretBody> = {
  create: (call, body) =>
    access.write(call, "create", undefined, async (audit) => {
      const id = newTenantResourceId("secret");
      return namespaceTransaction(call, async (tx, ns, onRollback) => {
        requireWritable(ns);
        if (await secretNameTaken(tx, ns.id, body.name)) {
          throw new ServiceError("RESOURCE_CONFLICT", NAME_IN_USE);
        }
        const { driver, bound } = await boundDriver(call.deps, "secrets", ns, "write");
        const pin = await driver.create(bound, ns.id, id, body.value);
        onRollback(() => driver.delete(pin.kubernetesNamespace, pin));
        const inserted = await insertSecret(tx, {
          ...pin,
          id,
          namespaceId: ns.id,
          name: body.name,
        });
        requireNameFree(inserted, NAME_IN_USE);
        await audit(tx, id, { namespaceId: ns.id, name: body.name });
        return inserted.secret;
      });
    }),

  read: (call, id) =>
    access.read(call, id, async (ns) => {
      const record = await found(call.deps.db, ns.id, id);
      await driverStep(async () => {
        const { driver, bound } = await boundDriver(call.deps, "secrets", ns, "read");
        return driver.verify(bound, ns.id, record);
      });
      return record;
    }),

  list: (call, opts) =>
    access.read(call, undefined, async (ns) => {
      const page = await secretRows.list(call.deps.db, ns.id, opts);
      await driverStep(async () => {
        const { driver, bound } = await boundDriver(call.deps, "secrets", ns, "read");
        return driver.verifyAll(bound, ns.id, page.items);
      });
      return page;
    }),

  update: (call, id, body) =>
    access.write(call, "update", id, (audit) =>
      namespaceTransaction(call, async (tx, ns, onRollback) => {
        const current = await found(tx, ns.id, id, true);
        requireWritable(ns);
        const { driver, bound } = await boundDriver(call.deps, "secrets", ns, "write");
        const previous = await driver.verify(bound, ns.id, current);
        const written = await driver.update(bound, ns.id, current, body.value);
        onRollback(async () => {
          await driver.restore(bound, ns.id, id, previous, written);
        });
        const record = await recordSecretUpdate(tx, id, written.resourceVersion);
        await audit(tx, id, { namespaceId: ns.id, version: record.version });
        return record;
      }),
    ),

  remove: (call, id) =>
    access.write(call, "delete", id, (audit) =>
      namespaceTransaction(call, async (tx, ns) => {
        const current = await found(tx, ns.id, id, true);
        if (await secretInUse(tx, id)) {
          throw new ServiceError(
            "RESOURCE_CONFLICT",
            "A ServiceAccount uses this Secret as its credential; delete it first.",
          );
        }
        const { driver, bound } = await boundDriver(call.deps, "secrets", ns, "write");
        await driver.verify(bound, ns.id, current);
        await deleteSecretRow(tx, id);
        await audit(tx, id, { namespaceId: ns.id });
        await driver.delete(bound.name, current);
      }),
    ),
};
