import type { NamespaceId, Placement } from "../domain/index.js";
import { authorize, type AuthorizationRequest } from "../iam/authorizer.js";
import { isPrincipalId } from "../iam/ids.js";
import type { Queryable } from "../store/db.js";
import type { StatusReasonInput } from "../store/namespace-vocabulary.js";
import type { NamespaceWorkKind } from "../main/namespace-work.js";

/**
 * The permissions the frozen actor must still hold, checked against current policy right
 * before the Driver call (control-plane.md §5): `namespace:create` (and, for an explicitly
 * selected namespace, `installation:administer` again, immediately before adoption) for
 * placement; `namespace:delete` on the Namespace for teardown.
 */
export function requiredPermissions(
  kind: NamespaceWorkKind,
  id: NamespaceId,
  placement: Placement,
): readonly AuthorizationRequest[] {
  if (kind === "namespace.teardown") {
    return [{ permission: { action: "delete", kind: "namespace" }, namespaceId: id }];
  }
  const create: AuthorizationRequest = { permission: { action: "create", kind: "namespace" } };
  return placement.mode === "external"
    ? [create, { permission: { action: "administer", kind: "installation" } }]
    : [create];
}

/**
 * `null` when the actor still holds every permission; otherwise the permanent reason —
 * `ACTOR_REVOKED` when the principal is gone, `AUTHORIZATION_DENIED` when a grant was revoked
 * or a restriction now matches. A failure to read policy throws (the caller retries; it is
 * never an allow).
 */
export async function reauthorize(
  q: Queryable,
  actor: string,
  requests: readonly AuthorizationRequest[],
): Promise<StatusReasonInput | null> {
  const revoked: StatusReasonInput = {
    code: "ACTOR_REVOKED",
    message: "the principal that requested this work no longer exists; the work was stopped",
  };
  if (!isPrincipalId(actor)) return revoked;
  for (const request of requests) {
    const decision = await authorize(q, actor, request);
    if (decision.allowed) continue;
    const { action, kind } = request.permission;
    return decision.reason === "principal_missing"
      ? revoked
      : {
          code: "AUTHORIZATION_DENIED",
          message: `the principal that requested this work no longer holds ${kind}:${action}; the work was stopped`,
        };
  }
  return null;
}
