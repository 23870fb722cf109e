/**
 * Schemas of the IAM administration routes: principals, API keys, roles, bindings and
 * restrictions as the API shows and accepts them.
 */
import { Type, type Static } from "@sinclair/typebox";
import { PREPROVISIONED_NAMESPACE_ID_PATTERN } from "../domain/placement/ids.js";
import { iamIdPattern } from "../iam/ids.js";
import { PERMISSION_ACTIONS, PERMISSION_KINDS, PRINCIPAL_KINDS } from "../iam/vocabulary.js";
import { DisplayName, DateTime, IdString, literalUnion, Nullable, PlainText } from "./envelopes.js";

export const PrincipalIdSchema = IdString(iamIdPattern("principal"), "A principal ID (`prn_…`).");
export const ApiKeyIdSchema = IdString(iamIdPattern("apiKey"), "An API key ID (`key_…`).");
export const RoleIdSchema = IdString(iamIdPattern("role"), "A role ID (`role_…`).");
export const BindingIdSchema = IdString(iamIdPattern("binding"), "A binding ID (`bnd_…`).");
export const RestrictionIdSchema = IdString(
  iamIdPattern("restriction"),
  "A restriction ID (`rst_…`).",
);
const NamespaceIdRef = IdString(PREPROVISIONED_NAMESPACE_ID_PATTERN.source, "A Namespace ID.");

/** `{ id }` path parameters for a given ID schema. */
export function IdParams<T extends ReturnType<typeof IdString>>(id: T) {
  return Type.Object({ id }, { additionalProperties: false });
}

export const PermissionSchema = Type.Object(
  { action: literalUnion(PERMISSION_ACTIONS), kind: literalUnion(PERMISSION_KINDS) },
  { additionalProperties: false },
);

export const PrincipalSchema = Type.Object(
  {
    id: PrincipalIdSchema,
    kind: literalUnion(PRINCIPAL_KINDS),
    name: Type.String(),
    createdAt: DateTime,
  },
  { additionalProperties: false },
);
export type PrincipalView = Static<typeof PrincipalSchema>;

export const CreatePrincipalBodySchema = Type.Object(
  {
    kind: literalUnion(PRINCIPAL_KINDS),
    name: DisplayName({ maxLength: 200, description: "Unique among live principals." }),
  },
  { additionalProperties: false },
);

export const ApiKeySchema = Type.Object(
  {
    id: ApiKeyIdSchema,
    principalId: PrincipalIdSchema,
    prefix: Type.String({ description: "Identifies the key; not secret." }),
    description: Type.String(),
    createdAt: DateTime,
    expiresAt: Nullable(DateTime),
    revokedAt: Nullable(DateTime),
    lastUsedAt: Nullable(DateTime),
  },
  { additionalProperties: false },
);
export type ApiKeyView = Static<typeof ApiKeySchema>;

export const IssuedApiKeySchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    key: Type.String({ description: "The key. Shown this once; only its hash is stored." }),
  },
  { additionalProperties: false },
);

export const CreateApiKeyBodySchema = Type.Object(
  {
    description: Type.Optional(PlainText({ maxLength: 200 })),
    expiresAt: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);

export const RoleSchema = Type.Object(
  {
    id: RoleIdSchema,
    name: Type.String(),
    description: Type.String(),
    permissions: Type.Array(PermissionSchema),
    createdAt: DateTime,
  },
  { additionalProperties: false },
);
export type RoleView = Static<typeof RoleSchema>;

export const CreateRoleBodySchema = Type.Object(
  {
    name: DisplayName({ maxLength: 200 }),
    description: Type.Optional(PlainText({ maxLength: 1000 })),
    permissions: Type.Array(PermissionSchema, {
      maxItems: PERMISSION_ACTIONS.length * PERMISSION_KINDS.length,
    }),
  },
  { additionalProperties: false },
);

export const BindingSchema = Type.Object(
  {
    id: BindingIdSchema,
    principalId: PrincipalIdSchema,
    roleId: RoleIdSchema,
    namespaceId: Nullable(NamespaceIdRef),
    createdAt: DateTime,
  },
  { additionalProperties: false },
);
export type BindingView = Static<typeof BindingSchema>;

export const CreateBindingBodySchema = Type.Object(
  {
    principalId: PrincipalIdSchema,
    roleId: RoleIdSchema,
    namespaceId: Type.Optional(
      Nullable(
        IdString(
          PREPROVISIONED_NAMESPACE_ID_PATTERN.source,
          "The Namespace to bind in; omit or null for an Installation-wide binding.",
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

export const BindingQuerySchema = Type.Object(
  {
    principalId: Type.Optional(PrincipalIdSchema),
    roleId: Type.Optional(RoleIdSchema),
    namespaceId: Type.Optional(NamespaceIdRef),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_-]+$" }),
    ),
  },
  { additionalProperties: false },
);

export const RestrictionSchema = Type.Object(
  {
    id: RestrictionIdSchema,
    principalId: Nullable(PrincipalIdSchema),
    namespaceId: Nullable(NamespaceIdRef),
    action: Nullable(literalUnion(PERMISSION_ACTIONS)),
    kind: Nullable(literalUnion(PERMISSION_KINDS)),
    description: Type.String(),
    createdAt: DateTime,
  },
  { additionalProperties: false },
);
export type RestrictionView = Static<typeof RestrictionSchema>;

export const CreateRestrictionBodySchema = Type.Object(
  {
    principalId: Type.Optional(PrincipalIdSchema),
    namespaceId: Type.Optional(NamespaceIdRef),
    action: Type.Optional(literalUnion(PERMISSION_ACTIONS)),
    kind: Type.Optional(literalUnion(PERMISSION_KINDS)),
    description: Type.Optional(PlainText({ maxLength: 1000 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
