/**
 * Creating a platform Namespace — the one path `POST /namespaces` and bootstrap both use
 * (control-plane.md §2). The checks run in the spec's order and each stops the request with
 * nothing stored:
 *
 * 1. the input (400; reserved names included);
 * 2. `namespace:create` on the collection (403);
 * 3. with `existingNamespace`: `installation:administer` (403) — before step 4, so a
 *    non-administrator learns nothing about the Installation's Compute selection;
 * 4. with `existingNamespace`: the Compute selection must be the bundled Kubernetes driver
 *    (409);
 * 4b. in the preprovisioned profile: refused (409 `NAMESPACE_NOT_PLACEABLE`, naming the bound
 *    Namespace) — it could only ever fail in the worker;
 * 5. one statement, so one transaction: the Namespace row, its `namespace:<id>:ready` work
 *    item with the caller as frozen actor (and its NOTIFY), and the success audit event — the
 *    last two only when the row was inserted. Name and selection conflicts are decided by the
 *    database's unique indexes, so simultaneous requests cannot both win (409).
 *
 * The result does not wait for the worker: the Namespace is returned in `provisioning`.
 */
import { newNamespaceId } from "../../domain/placement/ids.js";
import { enqueueGated } from "../../queue/enqueue.js";
import { auditGated } from "../../store/audit-events.js";
import type { JsonObject } from "../../store/columns.js";
import { insertNamespace } from "../../store/namespaces.js";
import type { NamespaceInsertConflict, NamespaceRecord } from "../../store/namespaces.js";
import { mutationEvent, recordingDenials, requirePermission } from "../authorization.js";
import type { AuditSubject, Caller } from "../authorization.js";
import { ADOPTION_REQUIRES_KUBERNETES, isBundledKubernetes } from "../compute-selection.js";
import { ServiceError } from "../errors.js";
import type { NamespaceServiceDeps } from "./deps.js";
import { validateCreateNamespace, type CreateNamespaceInput } from "./input.js";
import { refuseUnplaceable } from "./preprovisioned-refusal.js";
import { placementPermissions } from "./permissions.js";
import { namespaceWorkSubject } from "../../work/lanes.js";
import { ensureWorkKey } from "../../work/namespace-work.js";

/** The 409 messages of step 5, by the store's conflict code. */
export const CREATE_CONFLICT_MESSAGES: Readonly<Record<NamespaceInsertConflict, string>> = {
  name_in_use: "A Namespace with this name already exists",
  name_retired: "This name belongs to a deleted Namespace and cannot be reused",
  existing_namespace_claimed:
    "The selected existing namespace is already used by another Namespace",
};

/**
 * Creates a Namespace as described in the module comment; throws `ServiceError` on refusal.
 * `audit` names another action and adds details (an import of an orphan, `orphans.ts`).
 */
export async function createNamespace(
  deps: NamespaceServiceDeps,
  caller: Caller,
  input: CreateNamespaceInput,
  audit?: { readonly action: string; readonly details: JsonObject },
): Promise<NamespaceRecord> {
  const valid = validateCreateNamespace(input, deps.controllerNamespace);
  const subject: AuditSubject = {
    action: audit?.action ?? "namespaces.create",
    resourceKind: "namespace",
  };
  return recordingDenials(deps.db, caller, async () => {
    const [create, ...selectExisting] = placementPermissions(valid.placement);
    const grant = await requirePermission(deps.db, caller, create, subject);
    for (const request of selectExisting) {
      await requirePermission(deps.db, caller, request, subject);
    }
    if (valid.placement.mode === "external" && !isBundledKubernetes(deps.compute)) {
      throw new ServiceError("RESOURCE_CONFLICT", ADOPTION_REQUIRES_KUBERNETES);
    }
    refuseUnplaceable(deps.preprovisionedNamespaceId, valid);
    const id = newNamespaceId();
    const details: JsonObject = {
      placementMode: valid.placement.mode,
      ...(valid.placement.mode === "external"
        ? { existingNamespace: valid.placement.existingNamespace }
        : {}),
      ...audit?.details,
    };
    // One statement: the row, and only when it was inserted, its work item with the NOTIFY
    // and the audit event (store/composed.ts).
    const inserted = await insertNamespace(
      deps.db,
      { id, name: valid.name, placement: valid.placement },
      [
        enqueueGated(deps.queue, {
          kind: "namespace.ensure",
          subject: namespaceWorkSubject(id),
          key: ensureWorkKey(id),
          actor: caller.principalId,
        }),
        auditGated(mutationEvent(caller, { ...subject, resourceId: id }, grant, details)),
      ],
    );
    if (inserted.outcome === "conflict") {
      throw new ServiceError("RESOURCE_CONFLICT", CREATE_CONFLICT_MESSAGES[inserted.conflict]);
    }
    return inserted.namespace;
  });
}
