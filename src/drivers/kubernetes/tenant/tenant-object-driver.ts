/**
 * What the Configuration and Secret Drivers share: the tenant's bound namespace, resolved
 * afresh for each operation, and the one list call a listing verifies its objects against.
 * Each driver adds only its object's shape and how a listed object is checked.
 */
import { LABELS } from "../../../domain/placement/markers.js";
import type { DriverProfile } from "../../profile.js";
import type {
  BoundNamespace,
  BoundNamespaceResolver,
  PinnedObject,
  TenantAccess,
  TenantPlacement,
} from "../../tenant-objects.js";
import type { ObjectClient } from "../client/index.js";
import { resolveBoundNamespace } from "./bound-namespace.js";
import type { ClaimantIndex } from "./claimant-index.js";
import { tenantKubeFailure } from "./failures.js";
import type { DataObject } from "../client/index.js";
import { requireSameNamespace, type TenantObjectKind } from "./owned-store.js";

export abstract class TenantObjectDriver implements BoundNamespaceResolver {
  constructor(
    protected readonly client: ObjectClient,
    /** The process's profile: how the bound namespace is found (no default). */
    private readonly profile: DriverProfile,
    /** The API's claimant index, which reads consult (`null`: every access lists afresh). */
    private readonly index: ClaimantIndex | null = null,
  ) {}

  /** The tenant's bound namespace, resolved and verified now in the process's profile. */
  resolve(tenant: TenantPlacement, access: TenantAccess): Promise<BoundNamespace> {
    const index = access === "read" ? this.index : null;
    return resolveBoundNamespace(this.client, this.profile, tenant, index);
  }

  /**
   * The tenant's objects of `kind` in `bound` that carry `resourceLabel`, from one list call,
   * by object name. Every pin must record `bound` as its namespace (checked first, before any
   * call); a failed call is answered as a driver failure.
   */
  protected async listOwned(
    kind: TenantObjectKind,
    bound: BoundNamespace,
    tenantId: string,
    resourceLabel: string,
    pins: readonly PinnedObject[],
  ): Promise<Map<string | undefined, DataObject>> {
    for (const pin of pins) requireSameNamespace(bound, pin);
    let listed: DataObject[];
    try {
      listed = await this.client.list(kind, {
        namespace: bound.name,
        labelSelector: `${LABELS.namespace}=${tenantId},${resourceLabel}`,
      });
    } catch (err) {
      tenantKubeFailure(err, `list ${kind}s`, bound.name);
    }
    return new Map(listed.map((o) => [o.metadata?.name, o]));
  }
}
