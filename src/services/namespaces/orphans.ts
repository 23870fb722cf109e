/**
 * Orphaned tenant namespaces after a database restore (quality.md R9, docs/operations.md
 * "Backup and restore"): Kubernetes namespaces whose tenant markers name a platform Namespace
 * ID the database does not know. OCC never deletes, adopts or modifies them; it reports them
 * (`GET /namespaces/orphans`, the worker's `occ_orphan_namespaces` gauge and an Event), and an
 * administrator may import one:
 *
 * `POST /namespaces/imports` is the last step of `occ namespaces import`. The CLI released the
 * stale markers with the operator's own Kubernetes identity (the API may not write namespaces)
 * after the external-adoption preflight passed on the released namespace; this call checks,
 * under `installation:administer`, that the stale ID is still unknown and that no marker names
 * it any more, then creates the Namespace through the one create path with `existingNamespace`
 * — so the worker runs exactly the external-adoption checks — audited as `namespaces.import`
 * with the stale ID and what was released.
 */
import { markedNamespaceIds, orphansAmong, type OrphanNamespace } from "../../domain/index.js";
import type { MarkedNamespaces } from "../../drivers/marked-namespaces.js";
import type { Db } from "../../store/db.js";
import { knownNamespaceIds } from "../../store/namespace-ids.js";
import type { NamespaceRecord } from "../../store/namespaces.js";
import type { ImportNamespaceBody } from "../../contract/orphans.js";
import { recordingDenials, requirePermission, type Caller } from "../authorization.js";
import { configured, ServiceError } from "../errors.js";
import { createNamespace } from "./create.js";
import type { NamespaceServiceDeps } from "./deps.js";
import { SELECT_EXISTING_NAMESPACE } from "./permissions.js";

export interface OrphanServiceDeps extends NamespaceServiceDeps {
  /** Absent where namespaces may not be listed (preprovisioned profile, installed driver). */
  readonly markedNamespaces?: MarkedNamespaces | undefined;
}

/** The orphans the cluster holds now: one list of labelled namespaces, one query. */
export async function findOrphans(db: Db, marked: MarkedNamespaces): Promise<OrphanNamespace[]> {
  const namespaces = await marked.list();
  const ids = [...new Set(namespaces.flatMap((n) => markedNamespaceIds(n.metadata)))];
  const known = await knownNamespaceIds(db, ids);
  return orphansAmong(namespaces, (id) => known.has(id));
}

function readerOf(deps: OrphanServiceDeps): MarkedNamespaces {
  return configured(
    deps.markedNamespaces,
    "This API cannot list Kubernetes namespaces (preprovisioned profile or an installed Compute Driver); orphans are not reported here.",
  );
}

/** `GET /namespaces/orphans`: administrators only (`installation:administer`). */
export async function listOrphans(
  deps: OrphanServiceDeps,
  caller: Caller,
): Promise<OrphanNamespace[]> {
  return recordingDenials(deps.db, caller, async () => {
    await requirePermission(deps.db, caller, SELECT_EXISTING_NAMESPACE, {
      action: "namespaces.orphans",
      resourceKind: "namespace",
    });
    return findOrphans(deps.db, readerOf(deps));
  });
}

/** `POST /namespaces/imports`, as described in the module comment. */
export async function importOrphan(
  deps: OrphanServiceDeps,
  caller: Caller,
  body: ImportNamespaceBody,
): Promise<NamespaceRecord> {
  // Authorized first, so a non-administrator learns nothing about the Installation.
  await recordingDenials(deps.db, caller, () =>
    requirePermission(deps.db, caller, SELECT_EXISTING_NAMESPACE, {
      action: "namespaces.import",
      resourceKind: "namespace",
    }),
  );
  const reader = readerOf(deps);
  const stale = body.staleNamespaceId;
  if ((await knownNamespaceIds(deps.db, [stale])).has(stale)) {
    throw new ServiceError(
      "RESOURCE_CONFLICT",
      `Namespace ID ${stale} is known to the database, so its namespace is not an orphan; nothing was imported`,
    );
  }
  const stillMarked = (await reader.list()).some(
    (n) =>
      n.metadata?.name === body.existingNamespace || markedNamespaceIds(n.metadata).includes(stale),
  );
  if (stillMarked) {
    throw new ServiceError(
      "KUBERNETES_OWNERSHIP_CONFLICT",
      `${body.existingNamespace} (or another namespace) still carries tenant markers naming ${stale}; release them first (occ namespaces import does)`,
    );
  }
  return createNamespace(
    deps,
    caller,
    { name: body.name, existingNamespace: body.existingNamespace },
    {
      action: "namespaces.import",
      details: {
        staleNamespaceId: stale,
        released: {
          labels: [...body.released.labels],
          annotations: [...body.released.annotations],
          ownedObjects: body.released.ownedObjects,
        },
      },
    },
  );
}
