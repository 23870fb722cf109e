/**
 * The tenant RoleBindings of the preprovisioned namespace (preprovisioned.md §6, seed 001:
 * "Grant the worker and API tenant RoleBindings in the bound namespace").
 *
 * The profile's identities may `get` one namespace and nothing else cluster-wide, so they cannot
 * list RoleBindings. What every authenticated identity may always do is ask the API server
 * which rules it holds in a namespace (a SelfSubjectRulesReview, granted by the built-in
 * `system:basic-user` role): each process checks that its EFFECTIVE rules in the bound
 * namespace cover its tenant role. That answers the question that matters (may it do its
 * work?) whatever the operator named the binding; this module decides it, purely.
 */

/** One RBAC rule, as the chart grants it or as a rules review reports it. */
export interface GrantRule {
  readonly apiGroups?: readonly string[] | undefined;
  readonly resources?: readonly string[] | undefined;
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[] | undefined;
}

/** One permission the rules must cover: a verb on a resource of a group. */
export interface Permission {
  readonly apiGroup: string;
  readonly resource: string;
  readonly verb: string;
}

const covers = (list: readonly string[] | undefined, value: string) =>
  (list ?? []).includes(value) || (list ?? []).includes("*");

/**
 * Every permission of `required` that no rule of `granted` covers. A granted rule limited to
 * `resourceNames` covers nothing here (the tenant roles need every object of the kind).
 */
export function uncoveredPermissions(
  required: readonly GrantRule[],
  granted: readonly GrantRule[],
): Permission[] {
  const missing: Permission[] = [];
  for (const rule of required) {
    for (const apiGroup of rule.apiGroups ?? [""]) {
      for (const resource of rule.resources ?? []) {
        for (const verb of rule.verbs) {
          const held = granted.some(
            (g) =>
              (g.resourceNames ?? []).length === 0 &&
              covers(g.apiGroups, apiGroup) &&
              covers(g.resources, resource) &&
              covers(g.verbs, verb),
          );
          if (!held) missing.push({ apiGroup, resource, verb });
        }
      }
    }
  }
  return missing;
}

/** `verb resource[.group]`, comma-separated, at most `limit` then "…". */
export function describePermissions(missing: readonly Permission[], limit = 4): string {
  const shown = missing
    .slice(0, limit)
    .map((p) => `${p.verb} ${p.resource}${p.apiGroup === "" ? "" : `.${p.apiGroup}`}`);
  return missing.length > limit ? `${shown.join(", ")}, …` : shown.join(", ");
}

/** The RBAC subject of an authenticated username (`system:serviceaccount:<ns>:<name>`). */
export function subjectOfUsername(
  username: string,
):
  | { readonly kind: "ServiceAccount"; readonly name: string; readonly namespace: string }
  | { readonly kind: "User"; readonly name: string } {
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  if (sa?.[1] !== undefined && sa[2] !== undefined) {
    return { kind: "ServiceAccount", namespace: sa[1], name: sa[2] };
  }
  return { kind: "User", name: username };
}
