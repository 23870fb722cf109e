/**
 * IAM records as the API shows them: instants as ISO strings, never a key hash nor a session
 * token. The read use cases of IAM (list and get) are the records' own reads, re-exported beside
 * their mutations in this folder.
 */
import type { ApiKeyRecord } from "../../iam/api-keys.js";
import type { BindingRecord } from "../../iam/bindings.js";
import type { PrincipalRecord } from "../../iam/principals.js";
import type { RestrictionRecord } from "../../iam/restrictions.js";
import type { RoleRecord } from "../../iam/roles.js";
import type { SessionRecord } from "../../iam/sessions.js";
import type { ExternalIdentityRecord } from "../../iam/external-identities.js";
import type { SessionView } from "../../contract/auth.js";
import type { ExternalIdentityView } from "../../contract/identities.js";
import type {
  ApiKeyView,
  BindingView,
  PrincipalView,
  RestrictionView,
  RoleView,
} from "../../contract/iam.js";

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export function presentPrincipal(p: PrincipalRecord): PrincipalView {
  return { id: p.id, kind: p.kind, name: p.name, createdAt: p.createdAt.toISOString() };
}

export function presentApiKey(k: ApiKeyRecord): ApiKeyView {
  return {
    id: k.id,
    principalId: k.principalId,
    prefix: k.prefix,
    description: k.description,
    createdAt: k.createdAt.toISOString(),
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
    lastUsedAt: iso(k.lastUsedAt),
  };
}

export function presentRole(r: RoleRecord): RoleView {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    permissions: r.permissions.map((p) => ({ action: p.action, kind: p.kind })),
    createdAt: r.createdAt.toISOString(),
  };
}

export function presentBinding(b: BindingRecord): BindingView {
  return {
    id: b.id,
    principalId: b.principalId,
    roleId: b.roleId,
    namespaceId: b.namespaceId,
    createdAt: b.createdAt.toISOString(),
  };
}

export function presentRestriction(r: RestrictionRecord): RestrictionView {
  return {
    id: r.id,
    principalId: r.principalId,
    namespaceId: r.namespaceId,
    action: r.action,
    kind: r.kind,
    description: r.description,
    createdAt: r.createdAt.toISOString(),
  };
}

export function presentSession(s: SessionRecord): SessionView {
  return {
    id: s.id,
    principalId: s.principalId,
    method: s.method,
    clientAddress: s.clientAddress,
    userAgent: s.userAgent,
    createdAt: s.createdAt.toISOString(),
    lastSeenAt: s.lastSeenAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    revokedAt: iso(s.revokedAt),
  };
}

export function presentIdentity(i: ExternalIdentityRecord): ExternalIdentityView {
  return {
    principalId: i.principalId,
    issuer: i.issuer,
    subject: i.subject,
    email: i.email,
    createdAt: i.createdAt.toISOString(),
    lastSignInAt: iso(i.lastSignInAt),
  };
}
