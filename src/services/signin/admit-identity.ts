/**
 * Admitting a person who signed in through an external provider, once `openid-client` has
 * validated the ID token: the allow-list verdict, then — in one transaction — the principal
 * found by (issuer, subject) or created with no grants at a first sign-in, and the bindings of
 * `auth.oidc.groupRoles` brought in line with the person's groups of this sign-in. Every
 * refusal is audited (never a token or code) and answered with a reason for the person.
 */
import { allowListVerdict, type IdentityClaims } from "../../domain/signin/allow-list.js";
import { groupRolesDiff, type GroupRole } from "../../domain/signin/group-roles.js";
import { isPreprovisionedNamespaceId } from "../../domain/placement/ids.js";
import {
  findIdentity,
  linkIdentity,
  lockIdentityAdmission,
  touchIdentity,
} from "../../iam/external-identities.js";
import { addGroupGrant, heldGroupGrants, removeGroupGrants } from "../../iam/group-bindings.js";
import { asIamId, isRoleId, type PrincipalId } from "../../domain/iam/ids.js";
import { createPrincipal, getPrincipal } from "../../iam/principals.js";
import { findRoleByName } from "../../iam/roles.js";
import { appendAuditEvent } from "../../store/audit-events.js";
import type { JsonObject } from "../../store/columns.js";
import type { Db, Queryable } from "../../store/db.js";
import type { ExternalProviderSettings, GroupRoleSetting } from "./external-providers.js";

/** What the validated ID token says about the person. */
export interface ValidatedIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly claims: IdentityClaims;
}

export type AdmitResult =
  | {
      readonly admitted: true;
      readonly principalId: PrincipalId;
      readonly created: boolean;
    }
  | { readonly admitted: false; readonly refusal: string; readonly reason: string };

class Refused extends Error {
  constructor(
    readonly refusal: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const actorOf = (id: ValidatedIdentity, provider: string) =>
  `${provider}:${id.subject}`.slice(0, 200);

/** Resolves the configured grants to role IDs; entries whose role is missing are reported. */
async function resolveGroupRoles(
  q: Queryable,
  settings: readonly GroupRoleSetting[],
): Promise<{ mapping: GroupRole[]; unresolved: string[] }> {
  const mapping: GroupRole[] = [];
  const unresolved: string[] = [];
  for (const entry of settings) {
    const roleId = isRoleId(entry.role) ? entry.role : (await findRoleByName(q, entry.role))?.id;
    const ns = entry.namespaceId ?? null;
    if (roleId === undefined || (ns !== null && !isPreprovisionedNamespaceId(ns))) {
      unresolved.push(`${entry.group} → ${entry.role}`);
      continue;
    }
    mapping.push({ group: entry.group, roleId, namespaceId: ns });
  }
  return { mapping, unresolved };
}

async function syncGroupRoles(
  tx: Queryable,
  principalId: PrincipalId,
  settings: ExternalProviderSettings,
  groups: readonly string[],
): Promise<JsonObject | undefined> {
  if (settings.provider !== "oidc" || settings.groupRoles.length === 0) return undefined;
  const { mapping, unresolved } = await resolveGroupRoles(tx, settings.groupRoles);
  const diff = groupRolesDiff(mapping, groups, await heldGroupGrants(tx, principalId));
  const added: string[] = [];
  for (const grant of diff.add) {
    const namespaceId =
      grant.namespaceId !== null && isPreprovisionedNamespaceId(grant.namespaceId)
        ? grant.namespaceId
        : null;
    const done = await addGroupGrant(tx, principalId, {
      roleId: asIamId("role", grant.roleId),
      namespaceId,
    });
    if (done.outcome === "bound") added.push(`${grant.roleId}@${grant.namespaceId ?? "*"}`);
    else if (done.outcome !== "already_bound") unresolved.push(`${grant.roleId}: ${done.outcome}`);
  }
  await removeGroupGrants(tx, diff.remove);
  const removed = diff.remove.map((h) => `${h.roleId}@${h.namespaceId ?? "*"}`);
  if (added.length === 0 && removed.length === 0 && unresolved.length === 0) return undefined;
  return { added, removed, unresolved };
}

/** The principal of the identity, created (no grants) and linked at its first sign-in. */
async function principalFor(
  tx: Queryable,
  settings: ExternalProviderSettings,
  id: ValidatedIdentity,
): Promise<{ principalId: PrincipalId; created: boolean }> {
  const key = { issuer: id.issuer, subject: id.subject };
  // Recorded only when it is a plausible address (the column's CHECK); it already passed the
  // allow-lists, which matched it exactly.
  const claimed = id.claims.email;
  const email = claimed !== undefined && /^[^\s\p{Cc}]{3,320}$/u.test(claimed) ? claimed : null;
  // Two first sign-ins of one identity at once: the second waits and then finds the first's.
  await lockIdentityAdmission(tx, key);
  const known = await findIdentity(tx, key, { forUpdate: true });
  if (known !== undefined) {
    if ((await getPrincipal(tx, known.principalId)) === undefined) {
      throw new Refused(
        "principal_deleted",
        "The account this identity belongs to was deleted; ask an administrator.",
      );
    }
    await touchIdentity(tx, key, email);
    return { principalId: known.principalId, created: false };
  }
  const name = (email ?? `${settings.provider}:${id.subject}`).slice(0, 200);
  const made = await createPrincipal(tx, { kind: "user", name });
  if (made.outcome === "name_in_use") {
    throw new Refused(
      "name_in_use",
      `A principal named ${name} exists already and is not linked to this identity; an ` +
        "administrator can link it (occ identities link).",
    );
  }
  const linked = await linkIdentity(tx, { ...key, principalId: made.principal.id, email });
  if (linked.outcome !== "linked") throw new Error(`identity link after create: ${linked.outcome}`);
  await touchIdentity(tx, key, email);
  return { principalId: made.principal.id, created: true };
}

/** Decides and records one sign-in of `id` through `settings`' provider. */
export async function admitIdentity(
  db: Db,
  settings: ExternalProviderSettings,
  id: ValidatedIdentity,
  requestId: string | undefined,
): Promise<AdmitResult> {
  const subject = {
    provider: settings.provider,
    issuer: id.issuer,
    subject: id.subject,
    email: id.claims.email ?? null,
  };
  const refuse = async (refusal: string, reason: string): Promise<AdmitResult> => {
    // Shaped as the session service records a refused password sign-in (`auth.sign_in`,
    // outcome failure), with the identity named: never a token, code or cookie.
    await appendAuditEvent(db, {
      kind: "mutation",
      outcome: "failure",
      actor: actorOf(id, settings.provider),
      action: "auth.sign_in",
      resourceKind: "session",
      ...(requestId === undefined ? {} : { requestId }),
      details: { method: settings.provider, reason: refusal, ...subject },
    });
    return { admitted: false, refusal, reason };
  };
  const verdict = allowListVerdict(settings.provider, settings.allowLists, id.claims);
  if (!verdict.allowed) return refuse(verdict.refusal, verdict.reason);
  try {
    return await db.transaction(async (tx) => {
      const { principalId, created } = await principalFor(tx, settings, id);
      const groups = await syncGroupRoles(tx, principalId, settings, id.claims.groups);
      const event = (action: string, details: JsonObject) =>
        appendAuditEvent(tx, {
          kind: "mutation",
          outcome: "success",
          actor: principalId,
          action,
          resourceKind: "principal",
          resourceId: principalId,
          ...(requestId === undefined ? {} : { requestId }),
          details,
        });
      if (created) await event("principals.create", { ...subject, kind: "user" });
      if (groups !== undefined) await event("bindings.group_roles", { ...subject, ...groups });
      return { admitted: true, principalId, created } as const;
    });
  } catch (err) {
    if (err instanceof Refused) return refuse(err.refusal, err.reason);
    throw err;
  }
}
