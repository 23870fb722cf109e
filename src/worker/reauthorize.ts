import { authorize, type AuthorizationRequest } from "../iam/authorizer.js";
import type { KnownDecisions } from "../iam/embedded-decisions.js";
import { isPrincipalId } from "../domain/iam/ids.js";
import type { Queryable } from "../store/db.js";
import type { StatusReasonInput } from "../domain/placement/namespace-status.js";

/**
 * `null` when the actor still holds every permission; otherwise the permanent reason —
 * `ACTOR_REVOKED` when the principal is gone, `AUTHORIZATION_DENIED` when a grant was revoked
 * or a restriction now matches. A failure to read policy throws (the caller retries; it is
 * never an allow). A request `known` already decided (in the claim's statement) is not asked
 * again; every other request is decided by `authorize` now.
 */
export async function reauthorize(
  q: Queryable,
  actor: string,
  requests: readonly AuthorizationRequest[],
  known?: KnownDecisions,
): Promise<StatusReasonInput | null> {
  const revoked: StatusReasonInput = {
    code: "ACTOR_REVOKED",
    message: "the principal that requested this work no longer exists; the work was stopped",
  };
  if (!isPrincipalId(actor)) return revoked;
  for (const request of requests) {
    const decision = known?.(request) ?? (await authorize(q, actor, request));
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
