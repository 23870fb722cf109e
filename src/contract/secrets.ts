/**
 * The Secret resource as the API shows it (drivers.md §2): metadata only. The value is
 * write-only: it appears in request bodies and nowhere else — no response schema has a field
 * for it, so even a mistaken presenter could not send it.
 */
import { Type, type Static } from "@sinclair/typebox";
import { tenantResourceIdPattern } from "../domain/tenant/resources.js";
import { NamespaceIdSchema } from "./namespaces.js";
import { DisplayName, DateTime, IdString } from "./envelopes.js";

export const SecretIdSchema = IdString(
  tenantResourceIdPattern("secret").source,
  "A Secret ID (`sec_…`).",
);

const Value = Type.String({
  minLength: 1,
  maxLength: 32 * 1024,
  description: "The secret value. Write-only: never returned, logged or audited.",
});

export const CreateSecretBodySchema = Type.Object(
  { name: DisplayName({ maxLength: 200 }), value: Value },
  { additionalProperties: false },
);
export type CreateSecretBody = Static<typeof CreateSecretBodySchema>;

export const UpdateSecretBodySchema = Type.Object(
  { value: Value },
  { additionalProperties: false },
);
export type UpdateSecretBody = Static<typeof UpdateSecretBodySchema>;

export const SecretParamsSchema = Type.Object(
  { id: NamespaceIdSchema, secretId: SecretIdSchema },
  { additionalProperties: false },
);

export const SecretSchema = Type.Object(
  {
    id: SecretIdSchema,
    namespaceId: NamespaceIdSchema,
    name: Type.String(),
    version: Type.Integer({ minimum: 1, description: "Grows by one with every new value." }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: false },
);
export type SecretView = Static<typeof SecretSchema>;
