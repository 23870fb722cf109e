/**
 * What a Namespace mutation needs (control-plane.md §2, §5), written once: the API checks these
 * permissions when the request arrives, and the worker checks the same list again for the
 * frozen actor right before the Driver call.
 *
 * - placing a Namespace needs `namespace:create` on the collection;
 * - selecting an existing Kubernetes namespace (external placement) needs
 *   `installation:administer` as well — checked after `namespace:create` and before anything
 *   about the Installation's Compute selection is revealed;
 * - tearing a Namespace down needs `namespace:delete` on that Namespace.
 */
import type { NamespaceId } from "../../domain/placement/ids.js";
import type { Placement } from "../../domain/placement/placement.js";
import type { AuthorizationRequest } from "../../iam/authorizer.js";
import type { EmbeddedRequest } from "../../iam/embedded-decisions.js";
import type { Permission } from "../../domain/iam/vocabulary.js";
import type { NamespaceWorkKind } from "../../work/namespace-work.js";

/** `namespace:create` on the collection. */
export const CREATE_NAMESPACE: AuthorizationRequest = {
  permission: { action: "create", kind: "namespace" },
};

/** `installation:administer`: what selecting an existing namespace needs beyond create. */
export const SELECT_EXISTING_NAMESPACE: AuthorizationRequest = {
  permission: { action: "administer", kind: "installation" },
};

/**
 * The permissions placing a Namespace with `placement` needs, in the order they are checked;
 * the first is always `namespace:create` (its grant is the mutation's audit evidence).
 */
export function placementPermissions(
  placement: Pick<Placement, "mode">,
): readonly [AuthorizationRequest, ...AuthorizationRequest[]] {
  return placement.mode === "external"
    ? [CREATE_NAMESPACE, SELECT_EXISTING_NAMESPACE]
    : [CREATE_NAMESPACE];
}

/** `namespace:delete`, which tearing a Namespace down needs on that Namespace. */
const DELETE_NAMESPACE: Permission = { action: "delete", kind: "namespace" };

/** `namespace:delete` on the Namespace `id`. */
export function teardownPermission(id: NamespaceId): AuthorizationRequest {
  return { permission: DELETE_NAMESPACE, namespaceId: id };
}

/** What a Namespace pass of `kind` needs its frozen actor to still hold. */
export function namespacePassPermissions(
  kind: NamespaceWorkKind,
  id: NamespaceId,
  placement: Pick<Placement, "mode">,
): readonly AuthorizationRequest[] {
  return kind === "namespace.teardown" ? [teardownPermission(id)] : placementPermissions(placement);
}

/**
 * Every request {@link namespacePassPermissions} can return, for the worker to decide in its
 * claim's statement (`embedded-decisions.ts`): the collection's two, and delete on the
 * Namespace the pass is about.
 */
export const NAMESPACE_PASS_REQUESTS: readonly EmbeddedRequest[] = [
  { permission: CREATE_NAMESPACE.permission, about: "collection" },
  { permission: SELECT_EXISTING_NAMESPACE.permission, about: "collection" },
  { permission: DELETE_NAMESPACE, about: "namespace" },
];
