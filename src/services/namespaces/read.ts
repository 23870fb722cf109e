/**
 * Reading platform Namespaces (control-plane.md §2). One Namespace: authorize
 * `namespace:read` on its ID first, then look it up, so 403 and 404 say nothing about
 * Namespaces the caller may not read. A listing is filtered per item and never refused: it
 * holds exactly the live Namespaces the caller may read, and nothing about the others —
 * neither their IDs nor how many there are.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import {
  getNamespace,
  listNamespaces,
  type NamespaceCursor,
  type NamespacePage,
  type NamespaceRecord,
} from "../../store/namespaces.js";
import type { NamespaceStatus } from "../../domain/placement/namespace-status.js";
import { authorizedNamespaceFilter } from "../../iam/authorizer.js";
import { recordingDenials, requirePermission, type Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";
import type { NamespaceServiceDeps } from "./deps.js";

const READ = { action: "read", kind: "namespace" } as const;

/** The Namespace with `id` if the caller may read it; 403 when not, 404 when it is gone. */
export async function readNamespace(
  deps: Pick<NamespaceServiceDeps, "db">,
  caller: Caller,
  id: NamespaceId,
): Promise<NamespaceRecord> {
  return recordingDenials(deps.db, caller, async () => {
    await requirePermission(
      deps.db,
      caller,
      { permission: READ, namespaceId: id },
      { action: "namespaces.read", resourceKind: "namespace", resourceId: id },
    );
    const found = await getNamespace(deps.db, id);
    if (found === undefined) throw new ServiceError("NOT_FOUND", "No such Namespace.");
    return found;
  });
}

/**
 * One page of the Namespaces the caller may read, oldest first. A failure to read policy is
 * 503 (fail closed), never an unfiltered page.
 */
export async function listReadableNamespaces(
  deps: Pick<NamespaceServiceDeps, "db">,
  caller: Caller,
  opts: {
    readonly limit: number;
    readonly after?: NamespaceCursor | undefined;
    readonly status?: NamespaceStatus | undefined;
  },
): Promise<NamespacePage> {
  // The policy is checked in the page's own statement (a page costs its rows, not a pass over
  // every Namespace); failing to read it is failing to list: 503, never an unfiltered page.
  try {
    return await listNamespaces(deps.db, {
      limit: opts.limit,
      where: authorizedNamespaceFilter(caller.principalId, READ),
      status: opts.status,
      ...(opts.after === undefined ? {} : { after: opts.after }),
    });
  } catch (err) {
    throw new ServiceError(
      "DEPENDENCY_UNAVAILABLE",
      "Authorization policy could not be read; the request was denied. Retry later.",
      { cause: err },
    );
  }
}
