/**
 * Authorization decided inside another statement: the worker's re-authorization of a frozen
 * actor read in the claim's own statement instead of a round trip of its own (control-plane.md
 * §5: "against current policy immediately before adoption" — the claim is that moment). The
 * rules are `decision-rules.ts`', the same `authorize` applies; only the evidence (which binding
 * allowed, which restriction denied) is left to `authorize`, since re-authorization needs the
 * outcome alone. A request that was not decided in the statement is not answered here: the
 * caller asks `authorize`.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import type { AuthorizationRequest, DenialReason } from "./authorizer.js";
import { grantMatches, principalLive, restrictionMatches, type Over } from "./decision-rules.js";
import { isInstallationOnly, type Permission } from "../domain/iam/vocabulary.js";

/** A request decided in the statement: a permission on the collection, or on its Namespace. */
export interface EmbeddedRequest {
  readonly permission: Permission;
  readonly about: "collection" | "namespace";
}

/** What a decision comes to, without its evidence. */
export type DecisionOutcome =
  { readonly allowed: true } | { readonly allowed: false; readonly reason: DenialReason };

/** The outcome of a request decided in the statement; `undefined` when it was not. */
export type KnownDecisions = (request: AuthorizationRequest) => DecisionOutcome | undefined;

export interface EmbeddedDecisions {
  /**
   * Select-list columns over the expressions given: the principal's liveness, then one per
   * request.
   */
  readonly sql: string;
  /** The outcomes in `row`, the statement's result, whose Namespace expression was `namespaceId`. */
  read(row: Readonly<Record<string, unknown>>, namespaceId: NamespaceId): KnownDecisions;
}

/** A vocabulary word as a SQL literal; the vocabularies are lowercase words, nothing else is. */
function word(value: string): string {
  if (!/^[a-z_]+$/.test(value)) throw new Error(`authorizer: "${value}" is not a vocabulary word`);
  return `'${value}'`;
}

/** The outcome a request's column holds; anything else decides nothing. */
function outcomeOf(value: unknown): DecisionOutcome | undefined {
  if (value === "allowed") return { allowed: true };
  return value === "restricted" || value === "no_grant"
    ? { allowed: false, reason: value }
    : undefined;
}

/**
 * `requests` decided for the principal expression `principal`, a request about a Namespace
 * being about the expression `namespace`: whether the principal is live in column `<as>live`
 * (read once for every request), then each request in `<as><index>`. In `authorize`'s order:
 * a missing principal, then a matching restriction, then a grant. Where the SQL condition
 * `unless` holds no rule is evaluated and nothing is decided.
 */
export function embeddedDecisions(opts: {
  readonly principal: string;
  readonly namespace: string;
  readonly requests: readonly EmbeddedRequest[];
  readonly as: string;
  readonly unless?: string;
}): EmbeddedDecisions {
  const { requests, as } = opts;
  const skip = opts.unless === undefined ? "" : `WHEN ${opts.unless} THEN NULL`;
  const live = `CASE ${skip} WHEN ${principalLive({ principal: opts.principal })} THEN 'live'
    ELSE 'principal_missing' END AS ${as}live`;
  const column = (request: EmbeddedRequest, i: number): string => {
    const o: Over = {
      principal: opts.principal,
      action: word(request.permission.action),
      kind: word(request.permission.kind),
      ns: request.about === "namespace" ? opts.namespace : "NULL::text",
      installationOnly: isInstallationOnly(request.permission) ? "true" : "false",
    };
    return `CASE ${skip}
      WHEN EXISTS (SELECT 1 FROM restrictions r WHERE ${restrictionMatches(o)}) THEN 'restricted'
      WHEN EXISTS (SELECT 1 FROM bindings b JOIN role_permissions rp ON rp.role_id = b.role_id
                   WHERE ${grantMatches(o)}) THEN 'allowed'
      ELSE 'no_grant' END AS ${as}${String(i)}`;
  };
  return {
    sql: [live, ...requests.map(column)].join(",\n"),
    read: (row, namespaceId) => (request) => {
      const { action, kind } = request.permission;
      const i = requests.findIndex(
        (e) =>
          e.permission.action === action &&
          e.permission.kind === kind &&
          (e.about === "namespace"
            ? request.namespaceId === namespaceId
            : request.namespaceId === undefined),
      );
      if (i < 0) return undefined;
      const principal = row[`${as}live`];
      if (principal === "principal_missing") return { allowed: false, reason: principal };
      return principal === "live" ? outcomeOf(row[`${as}${String(i)}`]) : undefined;
    },
  };
}
