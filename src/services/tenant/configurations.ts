/**
 * The Configuration services (drivers.md §1), shared by the routes. Each: authorize
 * `configuration:<action>` on the Namespace first; look up (404); check the Namespace's state
 * for writes; resolve the bound namespace afresh; then touch the ConfigMap and the metadata.
 *
 * Writes run in one transaction holding the Namespace row (shared) and the Configuration row:
 * the ConfigMap write is made inside it and undone if the transaction rolls back (a create is
 * deleted by UID, an update is put back under its new resourceVersion). A delete removes the
 * row, then the ConfigMap as the last step before COMMIT, so a refused delete changes nothing.
 */
import { refuseWhileAgentsReference } from "../tenant/in-use.js";
import type { NamespaceId } from "../../domain/placement/ids.js";
import { contentDigest, newTenantResourceId } from "../../domain/tenant/resources.js";
import { DOCUMENT_LIMITS, serializeDocument } from "../../domain/input/json-documents.js";
import {
  deleteConfigurationRow,
  getConfiguration,
  insertConfiguration,
  listConfigurations,
  recordConfigurationUpdate,
  type ConfigurationRecord,
} from "../../store/configurations.js";
import type { ResourcePage, ResourcePageOptions } from "../../store/resource-paging.js";
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

const driverOf = (deps: TenantServiceDeps) => driversOf(deps).configurations;

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

async function found(
  q: Parameters<typeof getConfiguration>[0],
  ns: NamespaceId,
  id: string,
  forUpdate = false,
) {
  const row = await getConfiguration(q, ns, id, { forUpdate });
  if (row === undefined) throw new ServiceError("NOT_FOUND", "No such Configuration.");
  return row;
}

export function createConfiguration(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  body: CreateConfigurationBody,
): Promise<ConfigurationWithDocument> {
  return recordingDenials(deps.db, caller, async () => {
    const grant = await access.authorize(deps, caller, namespaceId, "create");
    const id = newTenantResourceId("configuration");
    const document = documentOf(body.values);
    return compensatedTransaction(deps, async (tx, onRollback) => {
      const ns = await liveNamespace(tx, namespaceId, { lock: true });
      requireWritable(ns, { whileManagedProvisioning: true });
      const driver = driverOf(deps);
      const bound = await driver.resolve(tenantPlacementOf(ns));
      const pin = await driver.create(bound, namespaceId, { id, kind: body.kind, document });
      onRollback(() => driver.delete(pin.kubernetesNamespace, pin));
      const record = await insertConfiguration(tx, {
        ...pin,
        id,
        namespaceId,
        kind: body.kind,
        contentSha256: contentDigest(document),
      });
      await recordMutation(tx, caller, access.subjectOf("create", id), grant, {
        namespaceId,
        generation: 1,
      });
      return { record, document };
    });
  });
}

export function readConfiguration(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  id: string,
): Promise<ConfigurationWithDocument> {
  return access.read(deps, caller, namespaceId, id, async (ns) => {
    const record = await found(deps.db, namespaceId, id);
    const driver = driverOf(deps);
    const document = await driverStep(async () =>
      driver.read(await driver.resolve(tenantPlacementOf(ns)), namespaceId, record),
    );
    return { record, document };
  });
}

export function listNamespaceConfigurations(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  opts: ResourcePageOptions,
): Promise<ResourcePage<ConfigurationWithDocument>> {
  return access.read(deps, caller, namespaceId, undefined, async (ns) => {
    const page = await listConfigurations(deps.db, namespaceId, opts);
    const driver = driverOf(deps);
    const documents = await driverStep(async () =>
      driver.readAll(await driver.resolve(tenantPlacementOf(ns)), namespaceId, page.items),
    );
    return {
      items: page.items.map((record) => ({ record, document: documents.get(record.id) ?? "" })),
      next: page.next,
    };
  });
}

export function updateConfiguration(
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  id: string,
  body: UpdateConfigurationBody,
): Promise<ConfigurationWithDocument> {
  return recordingDenials(deps.db, caller, async () => {
    const grant = await access.authorize(deps, caller, namespaceId, "update", id);
    const document = documentOf(body.values);
    return compensatedTransaction(deps, async (tx, onRollback) => {
      const ns = await liveNamespace(tx, namespaceId, { lock: true });
      const current = await found(tx, namespaceId, id, true);
      requireWritable(ns, { whileManagedProvisioning: true });
      const driver = driverOf(deps);
      const bound = await driver.resolve(tenantPlacementOf(ns));
      const previous = await driver.read(bound, namespaceId, current);
      const written = await driver.update(bound, namespaceId, current, document);
      onRollback(async () => {
        await driver.restore(bound, namespaceId, current, previous, written);
      });
      const record = await recordConfigurationUpdate(tx, id, {
        generation: current.generation + 1,
        resourceVersion: written.resourceVersion,
        contentSha256: contentDigest(document),
      });
      await recordMutation(tx, caller, access.subjectOf("update", id), grant, {
        namespaceId,
        generation: record.generation,
      });
      return { record, document };
    });
  });
}

export function deleteConfiguration(
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
      await refuseWhileAgentsReference(tx, namespaceId, { configurationId: id }, "Configuration");
      const driver = driverOf(deps);
      const bound = await driver.resolve(tenantPlacementOf(ns));
      await driver.read(bound, namespaceId, current);
      await deleteConfigurationRow(tx, id);
      await recordMutation(tx, caller, access.subjectOf("delete", id), grant, {
        namespaceId,
        generation: current.generation,
      });
      await driver.delete(bound.name, current);
    });
  });
}
