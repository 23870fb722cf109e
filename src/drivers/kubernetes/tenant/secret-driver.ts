/**
 * The Kubernetes Secret Driver (drivers.md §2): one Opaque Secret per OCC Secret in the
 * tenant's bound namespace, with the tenant ownership markers and the Secret ID. The row that
 * records it pins the physical namespace (name and UID) and the object's UID; a later
 * resolution to another namespace or UID refuses the operation.
 *
 * Values are write-only: this driver takes them and never returns them. They travel only in
 * the request body to the API server — never into an error, a log field or a return value.
 */
import {
  ownedObjectMismatch,
  RESOURCE_LABELS,
  SECRET_DATA_KEY,
  secretMarkers,
  secretObjectName,
} from "../../../domain/tenant/resources.js";
import type { PreviousValue, SecretDriver, SecretPin } from "../../secrets.js";
import { TenantObjectError, type BoundNamespace, type PinnedObject } from "../../tenant-objects.js";
import { createPinned, deletePinned, patchPinned, readPinned } from "./owned-store.js";
import { TenantObjectDriver } from "./tenant-object-driver.js";

const encode = (value: string) => ({
  [SECRET_DATA_KEY]: Buffer.from(value, "utf8").toString("base64"),
});

/** The bundled {@link SecretDriver}: one Opaque Secret per OCC Secret. */
export class KubernetesSecretDriver extends TenantObjectDriver implements SecretDriver {
  /** Writes a new Secret holding `value`. */
  create(
    bound: BoundNamespace,
    tenantId: string,
    id: string,
    value: string,
  ): Promise<PinnedObject> {
    return createPinned(this.client, "Secret", bound, {
      apiVersion: "v1",
      kind: "Secret",
      type: "Opaque",
      metadata: { name: secretObjectName(id), ...secretMarkers(tenantId, id) },
      data: encode(value),
    });
  }

  /**
   * Verifies the Secret is the one OCC wrote (namespace, UID, markers) and returns a handle
   * on its current value for compensation; the value itself is never exposed.
   */
  async verify(bound: BoundNamespace, tenantId: string, pin: SecretPin): Promise<PreviousValue> {
    const found = await readPinned(
      this.client,
      "Secret",
      bound,
      pin,
      secretMarkers(tenantId, pin.id),
    );
    return { data: found.data ?? {} };
  }

  /** Verifies every listed Secret with one list call; missing or altered refuses the listing. */
  async verifyAll(
    bound: BoundNamespace,
    tenantId: string,
    pins: readonly SecretPin[],
  ): Promise<void> {
    const byName = await this.listOwned("Secret", bound, tenantId, RESOURCE_LABELS.secret, pins);
    for (const pin of pins) {
      const found = byName.get(pin.objectName);
      const mismatch =
        found === undefined
          ? "it no longer exists"
          : ownedObjectMismatch(found.metadata, {
              name: pin.objectName,
              markers: secretMarkers(tenantId, pin.id),
              uid: pin.objectUid,
            });
      if (mismatch !== null) {
        throw new TenantObjectError("ownership", `A Secret OCC wrote was changed: ${mismatch}.`);
      }
    }
  }

  /** Replaces the value, guarded by the recorded resourceVersion. */
  update(
    bound: BoundNamespace,
    tenantId: string,
    pin: SecretPin,
    value: string,
  ): Promise<PinnedObject> {
    return patchPinned(this.client, "Secret", bound, pin, {
      metadata: secretMarkers(tenantId, pin.id),
      data: encode(value),
    });
  }

  /** Compensation of {@link update}: puts the previous value back, guarded by the new version. */
  restore(
    bound: BoundNamespace,
    tenantId: string,
    pinId: string,
    previous: PreviousValue,
    written: PinnedObject,
  ): Promise<PinnedObject> {
    return patchPinned(this.client, "Secret", bound, written, {
      metadata: secretMarkers(tenantId, pinId),
      data: previous.data,
    });
  }

  /** Deletes the Secret with a UID precondition (compensation of a create, or delete). */
  delete(namespace: string, pin: Pick<PinnedObject, "objectName" | "objectUid">): Promise<void> {
    return deletePinned(this.client, "Secret", namespace, pin);
  }
}
