/**
 * `occ bootstrap` (control-plane.md §3): makes a fresh database usable, and is safe to run
 * again at any point — after success, after a partial failure, or twice at once.
 *
 * 1. One transaction (serialized across processes by an advisory lock): the Installation, the
 *    `administrator` Role holding every permission, the administrator principal, and its
 *    Installation-wide binding — each created only if missing.
 * 2. The initial Namespace `default`, through `createNamespace` — the very path
 *    `POST /namespaces` takes, with the administrator as caller — unless a Namespace of that
 *    name exists or existed (a retired name stays retired).
 * 3. One API key for the administrator, issued only if it never had one, and returned — the
 *    only time it is ever available. Issuing it last means a run that failed earlier is simply
 *    run again, and the key is not lost with it.
 * 4. With `administratorPassword`, the administrator's (the recovery account's) password.
 */
import type { NamespaceId } from "../domain/placement/ids.js";
import type { NamespaceServiceDeps } from "./namespaces/deps.js";
import { createNamespace } from "./namespaces/create.js";
import { isServiceError } from "./errors.js";
import { appendAuditEvent } from "../store/audit-events.js";
import type { JsonObject } from "../store/columns.js";
import { ensureInstallation, lockBootstrap } from "../store/installation.js";
import { namespaceByName } from "../store/namespace-reads.js";
import type { Queryable } from "../store/db.js";
import { hasAnyApiKey, issueApiKey } from "../iam/api-keys.js";
import { createBinding } from "../iam/bindings.js";
import type { InstallationId, PrincipalId } from "../domain/iam/ids.js";
import { createPrincipal, findPrincipalByName, getPrincipal } from "../iam/principals.js";
import { addRolePermissions, createRole, findRoleByName } from "../iam/roles.js";
import { ALL_PERMISSIONS } from "../domain/iam/vocabulary.js";
import { setPassword } from "../iam/passwords.js";
import { revokePrincipalSessions } from "../iam/sessions.js";

/** The actor of bootstrap's own audit events (not a principal: none exists before it runs). */
export const BOOTSTRAP_ACTOR = "system:bootstrap";
export const ADMINISTRATOR_ROLE_NAME = "administrator";
export const DEFAULT_NAMESPACE_NAME = "default";

export interface BootstrapOptions {
  /** The administrator principal's name; default `admin`. */
  readonly administratorName?: string;
  /**
   * Sets (or resets) the administrator's password — the recovery account's — on this run;
   * its sessions end. Absent: the password is left as it is.
   */
  readonly administratorPassword?: string;
}

export interface BootstrapResult {
  readonly installationId: InstallationId;
  readonly administratorId: PrincipalId;
  /** The administrator's API key when this run issued it; `null` on every later run. */
  readonly apiKey: string | null;
  readonly defaultNamespace: {
    readonly id: NamespaceId;
    /** `created` by this run, already `existing`, or `retired` (deleted; not recreated). */
    readonly state: "created" | "existing" | "retired";
  };
}

/** Runs bootstrap as described in the module comment. */
export async function bootstrap(
  deps: NamespaceServiceDeps,
  opts: BootstrapOptions = {},
): Promise<BootstrapResult> {
  const name = opts.administratorName ?? "admin";
  const base = await deps.db.transaction(async (tx) => {
    await lockBootstrap(tx);
    const created: string[] = [];
    const inst = await ensureInstallation(tx);
    if (inst.created) created.push("installation");

    let role = await findRoleByName(tx, ADMINISTRATOR_ROLE_NAME);
    if (role === undefined) {
      const made = await createRole(tx, {
        name: ADMINISTRATOR_ROLE_NAME,
        description: "Every permission, Installation-wide. Created by bootstrap.",
        permissions: ALL_PERMISSIONS,
      });
      if (made.outcome !== "created") throw new Error("bootstrap: administrator role raced");
      role = made.role;
      created.push("role");
    } else {
      await addRolePermissions(tx, role.id, ALL_PERMISSIONS);
    }

    let admin = await findPrincipalByName(tx, name);
    if (admin === undefined) {
      const made = await createPrincipal(tx, { kind: "user", name });
      if (made.outcome !== "created") throw new Error("bootstrap: administrator principal raced");
      admin = made.principal;
      created.push("principal");
    }
    const bound = await createBinding(tx, {
      principalId: admin.id,
      roleId: role.id,
      namespaceId: null,
    });
    if (bound.outcome === "missing") throw new Error(`bootstrap: ${bound.what} vanished`);
    if (bound.outcome === "created") created.push("binding");

    if (created.length > 0) {
      await audit(tx, "installation.bootstrap", "installation", inst.installation.id, {
        created,
        administratorId: admin.id,
        roleId: role.id,
      });
    }
    return { installationId: inst.installation.id, administratorId: admin.id };
  });

  const defaultNamespace = await ensureDefaultNamespace(deps, base.administratorId);

  const apiKey = await deps.db.transaction(async (tx) => {
    if ((await getPrincipal(tx, base.administratorId, { forUpdate: true })) === undefined) {
      throw new Error("bootstrap: the administrator principal was deleted meanwhile; run again");
    }
    if (await hasAnyApiKey(tx, base.administratorId)) return null;
    const issued = await issueApiKey(tx, {
      principalId: base.administratorId,
      description: "Administrator key issued by bootstrap",
    });
    await audit(tx, "api_keys.create", "api_key", issued.record.id, {
      principalId: base.administratorId,
      prefix: issued.record.prefix,
    });
    return issued.key;
  });

  if (opts.administratorPassword !== undefined) {
    const password = opts.administratorPassword;
    await deps.db.transaction(async (tx) => {
      if ((await getPrincipal(tx, base.administratorId, { forUpdate: true })) === undefined) {
        throw new Error("bootstrap: the administrator principal was deleted meanwhile; run again");
      }
      await setPassword(tx, base.administratorId, password);
      const ended = await revokePrincipalSessions(tx, base.administratorId);
      await audit(tx, "principals.set_password", "principal", base.administratorId, {
        sessionsEnded: ended,
      });
    });
  }

  return { ...base, apiKey, defaultNamespace };
}

async function ensureDefaultNamespace(
  deps: NamespaceServiceDeps,
  administratorId: PrincipalId,
): Promise<BootstrapResult["defaultNamespace"]> {
  const existing = await findNamespaceByName(deps.db, DEFAULT_NAMESPACE_NAME);
  if (existing !== undefined) return existing;
  try {
    const created = await createNamespace(
      deps,
      { principalId: administratorId },
      { name: DEFAULT_NAMESPACE_NAME },
    );
    return { id: created.id, state: "created" };
  } catch (err) {
    // Another bootstrap created it between the read and the insert.
    const raced = isServiceError(err) && err.code === "RESOURCE_CONFLICT";
    const found = raced ? await findNamespaceByName(deps.db, DEFAULT_NAMESPACE_NAME) : undefined;
    if (found === undefined) throw err;
    return found;
  }
}

async function findNamespaceByName(
  q: Queryable,
  name: string,
): Promise<BootstrapResult["defaultNamespace"] | undefined> {
  const found = await namespaceByName(q, name);
  return found && { id: found.id, state: found.retired ? "retired" : "existing" };
}

async function audit(
  tx: Queryable,
  action: string,
  resourceKind: string,
  resourceId: string,
  details: JsonObject,
): Promise<void> {
  await appendAuditEvent(tx, {
    kind: "mutation",
    outcome: "success",
    actor: BOOTSTRAP_ACTOR,
    action,
    resourceKind,
    resourceId,
    details,
  });
}
