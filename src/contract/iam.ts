/**
 * Schemas of the IAM administration routes: principals, API keys, roles, bindings and
 * restrictions as the API shows and accepts them.
 */
import { Type, type Static } from "@sinclair/typebox";
import { PREPROVISIONED_NAMESPACE_ID_PATTERN } from "../domain/placement/ids.js";
import { iamIdPattern } from "../domain/iam/ids.js";
import { PERMISSION_ACTIONS, PERMISSION_KINDS, PRINCIPAL_KINDS } from "../domain/iam/vocabulary.js";
import {
  Closed,
  DisplayName,
  DateTime,
  IdString,
  literalUnion,
  Nullable,
  PlainText,
} from "./envelopes.js";

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
  return Closed({ id });
}

export const PermissionSchema = Closed({
  action: literalUnion(PERMISSION_ACTIONS),
  kind: literalUnion(PERMISSION_KINDS),
});

export const PrincipalSchema = Closed({
  id: PrincipalIdSchema,
  kind: literalUnion(PRINCIPAL_KINDS),
  name: Type.String(),
  createdAt: DateTime,
});
export type PrincipalView = Static<typeof PrincipalSchema>;

export const CreatePrincipalBodySchema = Closed(
  {
    kind: literalUnion(PRINCIPAL_KINDS),
    name: DisplayName({ maxLength: 200, description: "Unique among live principals." }),
  },
  { examples: [{ kind: "service", name: "ci pipeline" }] },
);

export const ApiKeySchema = Closed({
  id: ApiKeyIdSchema,
  principalId: PrincipalIdSchema,
  prefix: Type.String({ description: "Identifies the key; not secret." }),
  description: Type.String(),
  createdAt: DateTime,
  expiresAt: Nullable(DateTime),
  revokedAt: Nullable(DateTime),
  lastUsedAt: Nullable(DateTime),
});
export type ApiKeyView = Static<typeof ApiKeySchema>;

export const IssuedApiKeySchema = Closed({
  ...ApiKeySchema.properties,
  key: Type.String({ description: "The key. Shown this once; only its hash is stored." }),
});

export const CreateApiKeyBodySchema = Closed(
  {
    description: Type.Optional(PlainText({ maxLength: 200 })),
    expiresAt: Type.Optional(DateTime),
  },
  { examples: [{ description: "deploys from CI", expiresAt: "2027-01-01T00:00:00.000Z" }] },
);

export const RoleSchema = Closed({
  id: RoleIdSchema,
  name: Type.String(),
  description: Type.String(),
  permissions: Type.Array(PermissionSchema),
  createdAt: DateTime,
});
export type RoleView = Static<typeof RoleSchema>;

export const CreateRoleBodySchema = Closed(
  {
    name: DisplayName({ maxLength: 200 }),
    description: Type.Optional(PlainText({ maxLength: 1000 })),
    permissions: Type.Array(PermissionSchema, {
      maxItems: PERMISSION_ACTIONS.length * PERMISSION_KINDS.length,
    }),
  },
  {
    examples: [
      {
        name: "agent operator",
        description: "Reads and deploys Agents.",
        permissions: [
          { action: "read", kind: "agent" },
          { action: "deploy", kind: "agent" },
        ],
      },
    ],
  },
);

export const BindingSchema = Closed({
  id: BindingIdSchema,
  principalId: PrincipalIdSchema,
  roleId: RoleIdSchema,
  namespaceId: Nullable(NamespaceIdRef),
  createdAt: DateTime,
});
export type BindingView = Static<typeof BindingSchema>;

export const CreateBindingBodySchema = Closed(
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
  { examples: [{ principalId: "prn_example", roleId: "role_example", namespaceId: "ns_example" }] },
);

export const BindingQuerySchema = Closed({
  principalId: Type.Optional(PrincipalIdSchema),
  roleId: Type.Optional(RoleIdSchema),
  namespaceId: Type.Optional(NamespaceIdRef),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_-]+$" })),
});

export const RestrictionSchema = Closed({
  id: RestrictionIdSchema,
  principalId: Nullable(PrincipalIdSchema),
  namespaceId: Nullable(NamespaceIdRef),
  action: Nullable(literalUnion(PERMISSION_ACTIONS)),
  kind: Nullable(literalUnion(PERMISSION_KINDS)),
  description: Type.String(),
  createdAt: DateTime,
});
export type RestrictionView = Static<typeof RestrictionSchema>;

export const CreateRestrictionBodySchema = Type.Object(
  {
    principalId: Type.Optional(PrincipalIdSchema),
    namespaceId: Type.Optional(NamespaceIdRef),
    action: Type.Optional(literalUnion(PERMISSION_ACTIONS)),
    kind: Type.Optional(literalUnion(PERMISSION_KINDS)),
    description: Type.Optional(PlainText({ maxLength: 1000 })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ namespaceId: "ns_example", action: "delete", description: "No deletions here." }],
  },
);
