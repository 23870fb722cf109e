/**
 * `auth.oidc.groupRoles`: a group of the identity provider grants an OCC role Installation-wide
 * or in one Namespace. Re-evaluated at every sign-in: the bindings the person's groups call for
 * now are compared with the group-derived bindings they hold, and the difference is applied.
 * Bindings an administrator made by hand are never in `held`, so they are never removed here.
 */

/** One role grant, by role ID and scope (`namespaceId` null = Installation-wide). */
export interface RoleGrant {
  readonly roleId: string;
  readonly namespaceId: string | null;
}

/** One `groupRoles` entry with its role already resolved to a role ID. */
export interface GroupRole extends RoleGrant {
  readonly group: string;
}

/** A group-derived binding the principal holds now. */
export interface HeldGrant extends RoleGrant {
  readonly bindingId: string;
}

export interface GroupRolesDiff {
  readonly add: readonly RoleGrant[];
  readonly remove: readonly HeldGrant[];
}

function keyOf(grant: RoleGrant): string {
  return `${grant.roleId}\u0000${grant.namespaceId ?? ""}`;
}

/** The grants `groups` call for under `mapping`, each once, in mapping order. */
export function wantedGrants(
  mapping: readonly GroupRole[],
  groups: readonly string[],
): readonly RoleGrant[] {
  const member = new Set(groups);
  const seen = new Map<string, RoleGrant>();
  for (const entry of mapping) {
    if (!member.has(entry.group)) continue;
    const grant = { roleId: entry.roleId, namespaceId: entry.namespaceId };
    if (!seen.has(keyOf(grant))) seen.set(keyOf(grant), grant);
  }
  return [...seen.values()];
}

/** What to bind and what to unbind so the held group-derived grants equal the wanted ones. */
export function groupRolesDiff(
  mapping: readonly GroupRole[],
  groups: readonly string[],
  held: readonly HeldGrant[],
): GroupRolesDiff {
  const wanted = wantedGrants(mapping, groups);
  const wantedKeys = new Set(wanted.map(keyOf));
  const heldKeys = new Set(held.map(keyOf));
  return {
    add: wanted.filter((g) => !heldKeys.has(keyOf(g))),
    remove: held.filter((h) => !wantedKeys.has(keyOf(h))),
  };
}
