/**
 * Who the caller is (`GET /auth/whoami`): its principal, how it authenticated (an API key or a
 * session, with the session's expiry) and which Installation-wide permissions it holds, so the
 * console and `occ whoami` show what the caller may do without trying it.
 */
import { INSTALLATION_PERMISSION_NAMES, type WhoAmIView } from "../../contract/auth.js";
import { formatPermission, INSTALLATION_ONLY_PERMISSIONS } from "../../domain/iam/vocabulary.js";
import { authorize } from "../../iam/authorizer.js";
import { getPrincipal } from "../../iam/principals.js";
import type { Db } from "../../store/db.js";
import type { Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";

/** The caller as `GET /auth/whoami` shows it; 401 when its principal is gone. */
export async function whoAmI(db: Db, caller: Caller): Promise<WhoAmIView> {
  const principal = await getPrincipal(db, caller.principalId);
  const credential = caller.credential;
  if (principal === undefined || credential === undefined) {
    throw new ServiceError("UNAUTHENTICATED");
  }
  const held = await Promise.all(
    INSTALLATION_ONLY_PERMISSIONS.map(async (permission) =>
      (await authorize(db, principal.id, { permission })).allowed
        ? formatPermission(permission)
        : undefined,
    ),
  );
  return {
    installationPermissions: INSTALLATION_PERMISSION_NAMES.filter((p) => held.includes(p)),
    principal: { id: principal.id, kind: principal.kind, name: principal.name },
    credential:
      credential.kind === "api_key"
        ? credential
        : { ...credential, expiresAt: credential.expiresAt.toISOString() },
  };
}
