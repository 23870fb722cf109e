/**
 * The Configuration Driver port (drivers.md §1): one stored document per Configuration in the
 * tenant's bound namespace. PostgreSQL holds the metadata; the driver writes and verifies the
 * objects. An object whose markers, generation or content do not match the metadata is
 * refused (`ownership`), never repaired. Every failure is a `TenantObjectError`.
 *
 * The caller resolves the bound namespace once per operation and passes it to every call.
 */
import type { BoundNamespace, BoundNamespaceResolver, PinnedObject } from "./tenant-objects.js";

/** What the driver knows of one stored Configuration (its metadata row fits). */
export interface ConfigurationPin extends PinnedObject {
  readonly id: string;
  readonly kind: string;
  readonly generation: number;
  readonly contentSha256: string;
}

export interface ConfigurationDriver extends BoundNamespaceResolver {
  /** Writes generation 1 of a new Configuration; `document` is its JSON text. */
  create(
    bound: BoundNamespace,
    tenantId: string,
    c: { readonly id: string; readonly kind: string; readonly document: string },
  ): Promise<PinnedObject>;
  /** The stored document of `pin`, verified against the metadata. */
  read(bound: BoundNamespace, tenantId: string, pin: ConfigurationPin): Promise<string>;
  /** The documents of several Configurations, each verified; one bad object refuses all. */
  readAll(
    bound: BoundNamespace,
    tenantId: string,
    pins: readonly ConfigurationPin[],
  ): Promise<Map<string, string>>;
  /** Writes generation + 1 with `document`, guarded by the recorded resourceVersion. */
  update(
    bound: BoundNamespace,
    tenantId: string,
    pin: ConfigurationPin,
    document: string,
  ): Promise<PinnedObject>;
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
  ): Promise<PinnedObject>;
  /** Deletes the object with a UID precondition (compensation of a create, or delete). */
  delete(namespace: string, pin: Pick<PinnedObject, "objectName" | "objectUid">): Promise<void>;
}
