/**
 * The Configuration services (drivers.md §1), as the routes call them. Each: authorize
 * `configuration:<action>` on the Namespace first; look up (404); check the Namespace's state
 * for writes; resolve the bound namespace afresh; then touch the ConfigMap and the metadata.
 *
 * Writes run in one transaction holding the Namespace row (shared) and the Configuration row:
 * the ConfigMap write is made inside it and undone if the transaction rolls back (a create is
 * deleted by UID, an update is put back under its new resourceVersion). A delete removes the
 * row, then the ConfigMap as the last step before COMMIT, so a refused delete changes nothing.
 */
import { refuseWhileAgentsReference } from "../tenant/in-use.js";
import { contentDigest, newTenantResourceId } from "../../domain/tenant/resources.js";
import { DOCUMENT_LIMITS, serializeDocument } from "../../domain/input/json-documents.js";
import {
  deleteConfigurationRow,
  insertConfiguration,
  configurationRows,
  recordConfigurationUpdate,
} from "../../store/configurations.js";
import type { ConfigurationRecord } from "../../store/configurations.js";
import { ServiceError } from "../errors.js";
import { boundDriver, driverStep, namespaceTransaction, requireWritable } from "./access.js";
import { foundIn, resourceAccess } from "../tenant/resource-access.js";
import type { ResourceService } from "../tenant/resource-access.js";
import type {
  CreateConfigurationBody,
  UpdateConfigurationBody,
} from "../../contract/configurations.js";

/** A Configuration with its document. */
export interface ConfigurationWithDocument {
  readonly record: ConfigurationRecord;
  readonly document: string;
}

const access = resourceAccess<"create" | "read" | "update" | "delete">(
  "configuration",
  "configurations",
);

const LIMIT_TEXT = {
  depth: `${DOCUMENT_LIMITS.depth} levels of nesting`,
  keys: `${DOCUMENT_LIMITS.keys} keys`,
  bytes: `${DOCUMENT_LIMITS.bytes} bytes as compact JSON`,
} as const;

/**
 * The document to store, serialized before anything is written: within the documented limits
 * (400 naming the one exceeded otherwise), and — being `JSON.stringify` of a bounded, parsed
 * body — text whose parse is the response's `values`, so nothing after the commit can fail.
 */
function documentOf(values: Record<string, unknown>): string {
  const serialized = serializeDocument(values);
  if (serialized.ok) return serialized.value;
  const { limit, actual } = serialized.error;
  throw new ServiceError(
    "INVALID_REQUEST",
    `values exceeds the Configuration limit of ${LIMIT_TEXT[limit]} (it has ${actual}).`,
    { details: [{ path: "/body/values", code: "too_long" }] },
  );
}

const found = foundIn(configurationRows, "Configuration");

export const configurations: ResourceService<
  ConfigurationWithDocument,
  CreateConfigurationBody,
  UpdateConfigurationBody
> = {
  create: (call, body) =>
    access.write(call, "create", undefined, async (audit) => {
      const id = newTenantResourceId("configuration");
      const document = documentOf(body.values);
      return namespaceTransaction(call, async (tx, ns, onRollback) => {
        requireWritable(ns, { whileManagedProvisioning: true });
        const { driver, bound } = await boundDriver(call.deps, "configurations", ns, "write");
        const pin = await driver.create(bound, ns.id, { id, kind: body.kind, document });
        onRollback(() => driver.delete(pin.kubernetesNamespace, pin));
        const record = await insertConfiguration(tx, {
          ...pin,
          id,
          namespaceId: ns.id,
          kind: body.kind,
          contentSha256: contentDigest(document),
        });
        await audit(tx, id, { namespaceId: ns.id, generation: 1 });
        return { record, document };
      });
    }),

  read: (call, id) =>
    access.read(call, id, async (ns) => {
      const record = await found(call.deps.db, ns.id, id);
      const document = await driverStep(async () => {
        const { driver, bound } = await boundDriver(call.deps, "configurations", ns, "read");
        return driver.read(bound, ns.id, record);
      });
      return { record, document };
    }),

  list: (call, opts) =>
    access.read(call, undefined, async (ns) => {
      const page = await configurationRows.list(call.deps.db, ns.id, opts);
      const documents = await driverStep(async () => {
        const { driver, bound } = await boundDriver(call.deps, "configurations", ns, "read");
        return driver.readAll(bound, ns.id, page.items);
      });
      return {
        items: page.items.map((record) => ({ record, document: documents.get(record.id) ?? "" })),
        next: page.next,
      };
    }),

  update: (call, id, body) =>
    access.write(call, "update", id, async (audit) => {
      const document = documentOf(body.values);
      return namespaceTransaction(call, async (tx, ns, onRollback) => {
        const current = await found(tx, ns.id, id, true);
        requireWritable(ns, { whileManagedProvisioning: true });
        const { driver, bound } = await boundDriver(call.deps, "configurations", ns, "write");
        const previous = await driver.read(bound, ns.id, current);
        const written = await driver.update(bound, ns.id, current, document);
        onRollback(async () => {
          await driver.restore(bound, ns.id, current, previous, written);
        });
        const record = await recordConfigurationUpdate(tx, id, {
          generation: current.generation + 1,
          resourceVersion: written.resourceVersion,
          contentSha256: contentDigest(document),
        });
        await audit(tx, id, { namespaceId: ns.id, generation: record.generation });
        return { record, document };
      });
    }),

  remove: (call, id) =>
    access.write(call, "delete", id, (audit) =>
      namespaceTransaction(call, async (tx, ns) => {
        const current = await found(tx, ns.id, id, true);
        await refuseWhileAgentsReference(tx, ns.id, { configurationId: id }, "Configuration");
        const { driver, bound } = await boundDriver(call.deps, "configurations", ns, "write");
        await driver.read(bound, ns.id, current);
        await deleteConfigurationRow(tx, id);
        await audit(tx, id, { namespaceId: ns.id, generation: current.generation });
        await driver.delete(bound.name, current);
      }),
    ),
};
