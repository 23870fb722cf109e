/**
 * What every service on a Namespace's resources (Configurations, Secrets, ServiceAccounts)
 * shares: the dependencies, the Namespace lookup and readiness rules, the tenant's placement
 * as the drivers need it, and one transaction shape that compensates the Kubernetes write
 * when the metadata transaction rolls back (control-plane.md §4).
 *
 * Check order on every route: authorize the permission on the Namespace first (no existence
 * oracle: a caller without it gets 403 whether or not anything exists), then look up, then
 * state, then Kubernetes.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import type { ConfigurationDriver } from "../../drivers/configurations.js";
import type { SecretDriver } from "../../drivers/secrets.js";
import {
  TenantObjectError,
  type BoundNamespace,
  type TenantAccess,
  type TenantObjectFailure,
  type TenantPlacement,
} from "../../drivers/tenant-objects.js";
import type { Db, Queryable } from "../../store/db.js";
import { getNamespace, placementOf, type NamespaceRecord } from "../../store/namespaces.js";
import { shareLockLiveNamespace } from "../../store/namespace-reads.js";
import { DependencyUnavailableError } from "../../store/guarded-db.js";
import { configured, ServiceError } from "../errors.js";
import type { ErrorCode } from "../../contract/errors.js";
import { isClosedStatus } from "../../domain/placement/namespace-status.js";

/** Where a service reports what it handled but cannot answer (the API passes its logger). */
export interface ServiceLog {
  error(obj: object, msg: string): void;
}

/** What the resource services need from the process. */
export interface TenantServiceDeps {
  readonly db: Db;
  /** The API's Configuration and Secret Drivers; absent → every driver call answers 503. */
  readonly drivers: TenantDrivers | undefined;
  /** Where a failed compensation is reported (once, here, where it is handled). */
  readonly log?: ServiceLog | undefined;
}

/** The API's Configuration and Secret Drivers, built by the process's driver factory. */
export interface TenantDrivers {
  readonly configurations: ConfigurationDriver;
  readonly secrets: SecretDriver;
}

/** The API's tenant Drivers, or 503 when the process has none configured. */
export function driversOf(deps: TenantServiceDeps): TenantDrivers {
  return configured(
    deps.drivers,
    "The API has no Kubernetes client configured for the Configuration and Secret Drivers.",
  );
}

/** The live Namespace `id`, or 404. With `lock`, held (`FOR SHARE`) until the transaction ends. */
export async function liveNamespace(
  q: Queryable,
  id: NamespaceId,
  opts: { readonly lock?: boolean } = {},
): Promise<NamespaceRecord> {
  if (opts.lock === true) {
    // A share lock: DELETE /namespaces takes the row FOR UPDATE, so it waits for this
    // transaction and then counts what it added (or this one sees `deleting` and refuses).
    await shareLockLiveNamespace(q, id);
  }
  const found = await getNamespace(q, id);
  if (found === undefined) throw new ServiceError("NOT_FOUND", "No such Namespace.");
  return found;
}

/**
 * What a write needs of the Namespace's state (drivers.md §1–3): `failed` / `deleting` →
 * 409 `RESOURCE_CONFLICT`; `provisioning` → 409 `NAMESPACE_NOT_READY`, except that a managed
 * Namespace accepts Configurations (`whileManagedProvisioning`), and records that touch no
 * Kubernetes object (`recordsOnly`) do not wait.
 */
export function requireWritable(
  ns: NamespaceRecord,
  opts: { readonly whileManagedProvisioning?: boolean; readonly recordsOnly?: boolean } = {},
): void {
  if (isClosedStatus(ns.status)) {
    throw new ServiceError(
      "RESOURCE_CONFLICT",
      `The Namespace is ${ns.status}; it takes no changes.`,
    );
  }
  if (ns.status !== "provisioning" || opts.recordsOnly === true) return;
  if (ns.placementMode === "managed" && opts.whileManagedProvisioning === true) return;
  throw new ServiceError(
    "NAMESPACE_NOT_READY",
    "The Namespace is still provisioning; retry once its status is ready.",
  );
}

/** The tenant's placement and recorded binding, as the drivers resolve it. */
export function tenantPlacementOf(ns: NamespaceRecord): TenantPlacement {
  return {
    tenantId: ns.id,
    placement: placementOf(ns),
    recordedName: ns.kubernetesNamespace,
    recordedUid: ns.kubernetesUid,
  };
}

/**
 * The process's `kind` Driver (503 when it has none) with the tenant's bound namespace,
 * resolved afresh for one operation that will `access` the tenant's objects.
 */
export async function boundDriver<K extends keyof TenantDrivers>(
  deps: TenantServiceDeps,
  kind: K,
  ns: NamespaceRecord,
  access: TenantAccess,
): Promise<{ readonly driver: TenantDrivers[K]; readonly bound: BoundNamespace }> {
  const driver = driversOf(deps)[kind];
  return { driver, bound: await driver.resolve(tenantPlacementOf(ns), access) };
}

/**
 * The API code of each driver failure: 503 always (drivers.md), but the specific reason —
 * a missing RoleBinding or an ownership refusal is not a dependency that will come back.
 */
const TENANT_FAILURE_CODES = {
  ownership: "KUBERNETES_OWNERSHIP_CONFLICT",
  "namespace-missing": "KUBERNETES_NAMESPACE_MISSING",
  "permission-missing": "KUBERNETES_PERMISSION_MISSING",
  unavailable: "DEPENDENCY_UNAVAILABLE",
} as const satisfies Record<TenantObjectFailure, ErrorCode>;

/** A driver failure as the API answers it: 503 with its reason's code and safe message. */
export function apiErrorOf(err: unknown): unknown {
  if (err instanceof TenantObjectError) {
    return new ServiceError(TENANT_FAILURE_CODES[err.reason], err.message, { cause: err });
  }
  return err;
}

/** Registers an undo step for a Kubernetes write made inside the transaction. */
export type OnRollback = (undo: () => Promise<void>) => void;

/**
 * Runs `fn` in one transaction. Kubernetes writes made inside register their undo with
 * `onRollback`; when the transaction rolls back, the undo steps run (newest first) before the
 * error is answered. When COMMIT's outcome is unknown nothing is undone — blindly undoing a
 * write whose metadata may have committed would break the pair — and the answer is 503
 * "outcome unknown". Driver failures become 503 (see {@link apiErrorOf}).
 */
export async function compensatedTransaction<T>(
  deps: TenantServiceDeps,
  fn: (tx: Queryable, onRollback: OnRollback) => Promise<T>,
): Promise<T> {
  const undo: (() => Promise<void>)[] = [];
  try {
    return await deps.db.transaction((tx) => fn(tx, (step) => undo.push(step)));
  } catch (err) {
    if (err instanceof DependencyUnavailableError && err.outcomeUnknown) {
      throw new ServiceError(
        "DEPENDENCY_UNAVAILABLE",
        "The database did not confirm the change; its outcome is unknown. Read the resource before retrying.",
        { cause: err },
      );
    }
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch (undoErr) {
        deps.log?.error({ err: undoErr }, "compensation of a Kubernetes write failed");
      }
    }
    throw apiErrorOf(err);
  }
}

/**
 * {@link compensatedTransaction} on the live Namespace `namespaceId`, held (`FOR SHARE`) until
 * the transaction ends; 404 when it is gone.
 */
export function namespaceTransaction<T>(
  { deps, namespaceId }: { readonly deps: TenantServiceDeps; readonly namespaceId: NamespaceId },
  fn: (tx: Queryable, ns: NamespaceRecord, onRollback: OnRollback) => Promise<T>,
): Promise<T> {
  return compensatedTransaction(deps, async (tx, onRollback) =>
    fn(tx, await liveNamespace(tx, namespaceId, { lock: true }), onRollback),
  );
}

/** Runs a read-only driver step, answering its failures as 503. */
export async function driverStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw apiErrorOf(err);
  }
}
