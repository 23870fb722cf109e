/**
 * The Kubernetes Configuration Driver (drivers.md §1): one ConfigMap per Configuration in the
 * tenant's bound namespace, named from a hash of the ID, carrying the tenant ownership
 * markers, the Configuration ID, kind and generation, and one data key holding the JSON
 * document. PostgreSQL holds the metadata (the caller's rows); this driver only writes and
 * verifies objects. A ConfigMap whose markers, generation or content do not match the metadata
 * is refused (`ownership`), never repaired.
 *
 * The caller resolves the bound namespace once per operation ({@link resolve}) and passes it
 * to every call of that operation.
 */
import {
  CONFIGURATION_DATA_KEY,
  configMapName,
  configurationMarkers,
  contentDigest,
  ownedObjectMismatch,
  RESOURCE_LABELS,
} from "../../../domain/tenant/resources.js";
import type { ConfigurationDriver, ConfigurationPin } from "../../configurations.js";
import { TenantObjectError, type BoundNamespace, type PinnedObject } from "../../tenant-objects.js";
import { createPinned, deletePinned, patchPinned, readPinned } from "./owned-store.js";
import type { DataObject } from "../client/index.js";
import { TenantObjectDriver } from "./tenant-object-driver.js";

/** The bundled {@link ConfigurationDriver}: one ConfigMap per Configuration. */
export class KubernetesConfigurationDriver
  extends TenantObjectDriver
  implements ConfigurationDriver
{
  /** Writes generation 1 of a new Configuration; `document` is its JSON text. */
  create(
    bound: BoundNamespace,
    tenantId: string,
    c: { readonly id: string; readonly kind: string; readonly document: string },
  ): Promise<PinnedObject> {
    const markers = configurationMarkers(tenantId, c.id, c.kind, 1);
    return createPinned(this.client, "ConfigMap", bound, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: configMapName(c.id), ...markers },
      data: { [CONFIGURATION_DATA_KEY]: c.document },
    });
  }

  /** The stored document of `pin`, verified against the metadata. */
  async read(bound: BoundNamespace, tenantId: string, pin: ConfigurationPin): Promise<string> {
    const markers = configurationMarkers(tenantId, pin.id, pin.kind, pin.generation);
    return documentOf(await readPinned(this.client, "ConfigMap", bound, pin, markers), pin);
  }

  /**
   * The documents of several Configurations from one list call, each verified; a missing or
   * altered ConfigMap refuses the whole listing.
   */
  async readAll(
    bound: BoundNamespace,
    tenantId: string,
    pins: readonly ConfigurationPin[],
  ): Promise<Map<string, string>> {
    const byName = await this.listOwned(
      "ConfigMap",
      bound,
      tenantId,
      RESOURCE_LABELS.configuration,
      pins,
    );
    const out = new Map<string, string>();
    for (const pin of pins) {
      const found = byName.get(pin.objectName);
      const markers = configurationMarkers(tenantId, pin.id, pin.kind, pin.generation);
      if (found === undefined) {
        // Re-read it alone: the same verification and message as a single read.
        out.set(pin.id, await this.read(bound, tenantId, pin));
        continue;
      }
      const mismatch = ownedObjectMismatch(found.metadata, {
        name: pin.objectName,
        markers,
        uid: pin.objectUid,
      });
      if (mismatch !== null) {
        throw new TenantObjectError("ownership", `A ConfigMap OCC wrote was changed: ${mismatch}.`);
      }
      out.set(pin.id, documentOf(found, pin));
    }
    return out;
  }

  /** Writes generation + 1 with `document`, guarded by the recorded resourceVersion. */
  update(
    bound: BoundNamespace,
    tenantId: string,
    pin: ConfigurationPin,
    document: string,
  ): Promise<PinnedObject> {
    const next = configurationMarkers(tenantId, pin.id, pin.kind, pin.generation + 1);
    return patchPinned(this.client, "ConfigMap", bound, pin, {
      metadata: next,
      data: { [CONFIGURATION_DATA_KEY]: document },
    });
  }

  /**
   * Compensation of {@link update} when the metadata transaction rolled back: puts back the
   * previous generation and document, guarded by the resourceVersion the update produced.
   */
  restore(
    bound: BoundNamespace,
    tenantId: string,
    previous: ConfigurationPin,
    previousDocument: string,
    written: PinnedObject,
  ): Promise<PinnedObject> {
    const markers = configurationMarkers(tenantId, previous.id, previous.kind, previous.generation);
    return patchPinned(this.client, "ConfigMap", bound, written, {
      metadata: markers,
      data: { [CONFIGURATION_DATA_KEY]: previousDocument },
    });
  }

  /** Deletes the ConfigMap with a UID precondition (compensation of a create, or delete). */
  delete(namespace: string, pin: Pick<PinnedObject, "objectName" | "objectUid">): Promise<void> {
    return deletePinned(this.client, "ConfigMap", namespace, pin);
  }
}

function documentOf(obj: DataObject, pin: ConfigurationPin): string {
  const document = obj.data?.[CONFIGURATION_DATA_KEY];
  if (document === undefined || contentDigest(document) !== pin.contentSha256) {
    throw new TenantObjectError(
      "ownership",
      "The ConfigMap OCC wrote holds a document that does not match OCC's records; it was edited by hand and is not repaired.",
    );
  }
  return document;
}
