/**
 * The authorization rules as SQL (control-plane.md §3), written once over the expressions a
 * decision is made over, so that every statement that decides — `authorize`, the listing filter
 * `authorizedNamespaceIds` and the decisions embedded in another statement
 * (`embedded-decisions.ts`) — applies the same rules.
 */

/**
 * The SQL expressions one decision is made over: the principal, the permission's action and
 * kind, the Namespace the request is about (NULL for a collection) and whether the permission
 * is Installation-only.
 */
export interface Over {
  readonly principal: string;
  readonly action: string;
  readonly kind: string;
  readonly ns: string;
  readonly installationOnly: string;
}

/** The principal exists and is not deleted. */
export function principalLive(o: Pick<Over, "principal">): string {
  return `EXISTS (SELECT 1 FROM principals WHERE id = ${o.principal} AND deleted_at IS NULL)`;
}

/** The restriction predicate over alias `r`. */
export function restrictionMatches(o: Over): string {
  return `(r.principal_id IS NULL OR r.principal_id = ${o.principal})
    AND (r.namespace_id IS NULL OR r.namespace_id = ${o.ns})
    AND (r.action IS NULL OR r.action = ${o.action}) AND (r.kind IS NULL OR r.kind = ${o.kind})`;
}

/** The grant predicate over aliases `b`, `rp`. */
export function grantMatches(o: Over): string {
  return `b.principal_id = ${o.principal} AND rp.action = ${o.action} AND rp.kind = ${o.kind}
    AND (b.namespace_id IS NULL OR (NOT ${o.installationOnly} AND b.namespace_id = ${o.ns}))`;
}
