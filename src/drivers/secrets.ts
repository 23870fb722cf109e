/**
 * The Secret Driver port (drivers.md §2): one object per OCC Secret in the tenant's bound
 * namespace. The row that records it pins the physical namespace (name and UID) and the
 * object's UID; a later resolution to another namespace or UID refuses the operation.
 *
 * Values are write-only: a driver takes them and never returns them — never into an error, a
 * log field or a return value. Every failure is a `TenantObjectError`.
 */
import type { BoundNamespace, BoundNamespaceResolver, PinnedObject } from "./tenant-objects.js";

/** What the driver knows of one stored Secret (its metadata row fits). */
export interface SecretPin extends PinnedObject {
  readonly id: string;
}

/** An opaque handle on a previous value, kept only to compensate an update. */
export interface PreviousValue {
  readonly data: Readonly<Record<string, string>>;
}

export interface SecretDriver extends BoundNamespaceResolver {
  /** Writes a new Secret holding `value`. */
  create(bound: BoundNamespace, tenantId: string, id: string, value: string): Promise<PinnedObject>;
  /**
   * Verifies the Secret is the one OCC wrote (namespace, UID, markers) and returns a handle
   * on its current value for compensation; the value itself is never exposed.
   */
  verify(bound: BoundNamespace, tenantId: string, pin: SecretPin): Promise<PreviousValue>;
  /** Verifies every listed Secret at once; a missing or altered one refuses the listing. */
  verifyAll(bound: BoundNamespace, tenantId: string, pins: readonly SecretPin[]): Promise<void>;
  /** Replaces the value, guarded by the recorded resourceVersion. */
  update(
    bound: BoundNamespace,
    tenantId: string,
    pin: SecretPin,
    value: string,
  ): Promise<PinnedObject>;
  /** Compensation of {@link update}: puts the previous value back, guarded by the new version. */
  restore(
    bound: BoundNamespace,
    tenantId: string,
    pinId: string,
    previous: PreviousValue,
    written: PinnedObject,
  ): Promise<PinnedObject>;
  /** Deletes the Secret with a UID precondition (compensation of a create, or delete). */
  delete(namespace: string, pin: Pick<PinnedObject, "objectName" | "objectUid">): Promise<void>;
}
