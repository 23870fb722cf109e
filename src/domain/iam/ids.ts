/**
 * Identifiers of IAM records. Each is a prefix plus up to 64 characters of `[a-zA-Z0-9_-]`
 * (the pattern the migration's CHECKs hold); the server generates `prefix + UUIDv4`. Branded
 * so a principal ID cannot be passed where a role ID is expected, or a caller's raw string
 * where a validated ID is.
 */
import { randomUUID } from "node:crypto";
import { keysOf } from "../input/unknowns.js";

declare const iamIdBrand: unique symbol;

/** The ID prefixes, one per record kind. */
export const IAM_ID_PREFIXES = {
  principal: "prn_",
  apiKey: "key_",
  role: "role_",
  binding: "bnd_",
  restriction: "rst_",
  installation: "inst_",
  session: "ses_",
} as const;
export type IamRecordKind = keyof typeof IAM_ID_PREFIXES;

/** A validated ID of one IAM record kind. */
export type IamId<K extends IamRecordKind> = string & { readonly [iamIdBrand]: K };

export type PrincipalId = IamId<"principal">;
export type ApiKeyId = IamId<"apiKey">;
export type RoleId = IamId<"role">;
export type BindingId = IamId<"binding">;
export type RestrictionId = IamId<"restriction">;
export type InstallationId = IamId<"installation">;
export type SessionId = IamId<"session">;

/** The body of every IAM ID after its prefix. Installation IDs are lowercase only. */
const ID_BODY = "[a-zA-Z0-9_-]{1,64}";

/** The full pattern of an ID of kind `kind`, as a string (for schemas) — anchored. */
export function iamIdPattern(kind: IamRecordKind): string {
  const body = kind === "installation" ? "[a-z0-9-]{1,64}" : ID_BODY;
  return `^${IAM_ID_PREFIXES[kind]}${body}$`;
}

const PATTERNS = new Map(keysOf(IAM_ID_PREFIXES).map((k) => [k, new RegExp(iamIdPattern(k))]));

/** A type guard for IDs of `kind`. */
export function isIamId<K extends IamRecordKind>(kind: K) {
  return (value: unknown): value is IamId<K> =>
    typeof value === "string" && PATTERNS.get(kind)?.test(value) === true;
}

export const isPrincipalId = isIamId("principal");
export const isApiKeyId = isIamId("apiKey");
export const isRoleId = isIamId("role");
export const isBindingId = isIamId("binding");
export const isRestrictionId = isIamId("restriction");
export const isInstallationId = isIamId("installation");
export const isSessionId = isIamId("session");

/** Narrows `value` or throws: for values a schema has already checked. */
export function asIamId<K extends IamRecordKind>(kind: K, value: string): IamId<K> {
  if (!isIamId(kind)(value)) throw new TypeError(`not a valid ${kind} ID`);
  return value;
}

/** A fresh server-generated ID: the prefix and a lowercase UUIDv4. */
export function newIamId<K extends IamRecordKind>(kind: K): IamId<K> {
  return asIamId(kind, `${IAM_ID_PREFIXES[kind]}${randomUUID()}`);
}
