/**
 * The API key use cases (control-plane.md §2), each an administered mutation: issue (400 when
 * `expiresAt` is not in the future, 404 when the principal is missing; the key is returned
 * once) and revoke (404; revoking twice is a no-op).
 */
import {
  issueApiKey,
  revokeApiKey,
  type ApiKeyRecord,
  type IssuedApiKey,
} from "../../iam/api-keys.js";
import type { ApiKeyId, PrincipalId } from "../../domain/iam/ids.js";
import { getPrincipal } from "../../iam/principals.js";
import type { Db, Queryable } from "../../store/db.js";
import type { Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";
import { mutate, type Mutation } from "./administer.js";

export function issueApiKeyAsAdministrator(
  db: Db,
  caller: Caller,
  input: {
    readonly principalId: PrincipalId;
    readonly description?: string | undefined;
    readonly expiresAt: Date | null;
  },
): Promise<IssuedApiKey> {
  const { principalId, description, expiresAt } = input;
  if (expiresAt !== null && expiresAt.getTime() <= Date.now()) {
    throw new ServiceError("INVALID_REQUEST", "expiresAt must lie in the future.", {
      details: [{ path: "/body/expiresAt", code: "out_of_range" }],
    });
  }
  return mutate(db, caller, { action: "api_keys.create", resourceKind: "api_key" }, async (tx) => {
    if ((await getPrincipal(tx, principalId, { forUpdate: true })) === undefined) {
      throw new ServiceError("NOT_FOUND", "No such principal.");
    }
    const key = await issueApiKey(tx, {
      principalId,
      ...(description === undefined ? {} : { description }),
      expiresAt,
    });
    return {
      result: key,
      resourceId: key.record.id,
      details: { principalId, prefix: key.record.prefix },
    };
  });
}

/** The revoke step of `DELETE /api-keys/:id`. */
export async function revokeApiKeyStep(
  tx: Queryable,
  id: ApiKeyId,
): Promise<Mutation<ApiKeyRecord>> {
  const result = await revokeApiKey(tx, id);
  if (result.outcome === "not_found") throw new ServiceError("NOT_FOUND", "No such API key.");
  return {
    result: result.key,
    resourceId: id,
    details: { alreadyRevoked: result.outcome === "already_revoked" },
  };
}

/** The read use case of a principal's API keys (metadata; the hash is never presented). */
export { listApiKeys } from "../../iam/api-keys.js";
