/**
 * The permission vocabulary (control-plane.md §3). A permission is an `(action, kind)` pair;
 * a Role is a set of them. The migration's `permission_action` and `permission_kind` domains
 * hold the same lists, so a value outside them is refused by the database as well.
 */

/** Every action, in the order the spec lists them. */
export const PERMISSION_ACTIONS = [
  "create",
  "read",
  "update",
  "delete",
  "deploy",
  "operate",
  "administer",
] as const;
export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];

/** Every resource kind a permission can name. */
export const PERMISSION_KINDS = [
  "installation",
  "namespace",
  "configuration",
  "secret",
  "service_account",
  "agent",
  "agent_revision",
] as const;
export type PermissionKind = (typeof PERMISSION_KINDS)[number];

/** One permission. Written `kind:action` for people (`namespace:create`). */
export interface Permission {
  readonly action: PermissionAction;
  readonly kind: PermissionKind;
}

/**
 * Permissions that only Installation-wide bindings can grant. A role holding them may still be
 * bound to one Namespace; there they simply do not apply (control-plane.md §3), because
 * creating tenants and administering the Installation are not things that happen *inside* a
 * tenant.
 */
export const INSTALLATION_ONLY_PERMISSIONS = [
  { action: "administer", kind: "installation" },
  { action: "create", kind: "namespace" },
] as const satisfies readonly Permission[];

/** True when `p` can only come from an Installation-wide binding. */
export function isInstallationOnly(p: Permission): boolean {
  return INSTALLATION_ONLY_PERMISSIONS.some((q) => q.action === p.action && q.kind === p.kind);
}

/** `namespace:create`, the form used in messages and audit details. */
export function formatPermission(p: Permission): string {
  return `${p.kind}:${p.action}`;
}

/** Every permission there is: the administrator Role holds exactly these. */
export const ALL_PERMISSIONS: readonly Permission[] = PERMISSION_KINDS.flatMap((kind) =>
  PERMISSION_ACTIONS.map((action) => ({ action, kind })),
);

/** Principals are people or programs; both authenticate with API keys. */
export const PRINCIPAL_KINDS = ["user", "service"] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

/** How a session was signed in. */
export const SESSION_METHODS = ["password", "oidc", "google"] as const;
export type SessionMethod = (typeof SESSION_METHODS)[number];
