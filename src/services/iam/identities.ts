/**
 * External identity use cases (issue 42), each an administered mutation: link an identity
 * (issuer + subject) to a live user principal (404 when missing, 400 for a service principal,
 * 409 when the identity is linked already) and unlink it (404 when that principal has no such
 * identity).
 */
import {
  linkIdentity,
  unlinkIdentity,
  type ExternalIdentityRecord,
  type IdentityKey,
} from "../../iam/external-identities.js";
import type { PrincipalId } from "../../domain/iam/ids.js";
import type { Db } from "../../store/db.js";
import type { Caller } from "../authorization.js";
import { ServiceError } from "../errors.js";
import { mutate } from "./administer.js";

const SUBJECT = { resourceKind: "principal" } as const;

export function linkIdentityAsAdministrator(
  db: Db,
  caller: Caller,
  input: IdentityKey & { readonly principalId: PrincipalId; readonly email: string | null },
): Promise<ExternalIdentityRecord> {
  return mutate(db, caller, { ...SUBJECT, action: "identities.link" }, async (tx) => {
    const result = await linkIdentity(tx, input);
    switch (result.outcome) {
      case "principal_missing":
        throw new ServiceError("NOT_FOUND", "No such principal.");
      case "not_a_user":
        throw new ServiceError(
          "INVALID_REQUEST",
          "Only a principal of kind user may have external identities; this one is a service.",
        );
      case "identity_in_use":
        throw new ServiceError(
          "RESOURCE_CONFLICT",
          "This identity (issuer and subject) is linked already; unlink it from its principal first.",
        );
      case "linked":
        return {
          result: result.identity,
          resourceId: input.principalId,
          details: { issuer: input.issuer, subject: input.subject },
        };
    }
  });
}

export function unlinkIdentityAsAdministrator(
  db: Db,
  caller: Caller,
  principalId: PrincipalId,
  key: IdentityKey,
): Promise<ExternalIdentityRecord> {
  return mutate(db, caller, { ...SUBJECT, action: "identities.unlink" }, async (tx) => {
    const gone = await unlinkIdentity(tx, principalId, key);
    if (gone === undefined) {
      throw new ServiceError(
        "NOT_FOUND",
        "This principal has no such identity (issuer and subject).",
      );
    }
    return {
      result: gone,
      resourceId: principalId,
      details: { issuer: key.issuer, subject: key.subject },
    };
  });
}

/** The read use case of a principal's external identities. */
export { listIdentities } from "../../iam/external-identities.js";
