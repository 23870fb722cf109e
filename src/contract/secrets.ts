/**
 * The Secret resource as the API shows it (drivers.md §2): metadata only. The value is
 * write-only: it appears in request bodies and nowhere else — no response schema has a field
 * for it, so even a mistaken presenter could not send it.
 */
import { Type, type Static } from "@sinclair/typebox";
import { tenantResourceIdPattern } from "../domain/tenant/resources.js";
import { NamespaceIdSchema } from "./namespaces.js";
import { Closed, DisplayName, DateTime, IdString } from "./envelopes.js";

export const SecretIdSchema = IdString(
  tenantResourceIdPattern("secret").source,
  "A Secret ID (`sec_…`).",
);

const Value = Type.String({
  minLength: 1,
  maxLength: 32 * 1024,
  description: "The secret value. Write-only: never returned, logged or audited.",
});

export const CreateSecretBodySchema = Closed(
  { name: DisplayName({ maxLength: 200 }), value: Value },
  { examples: [{ name: "model provider key", value: "example-secret-value" }] },
);
export type CreateSecretBody = Static<typeof CreateSecretBodySchema>;

export const UpdateSecretBodySchema = Closed(
  { value: Value },
  { examples: [{ value: "example-rotated-value" }] },
);
export type UpdateSecretBody = Static<typeof UpdateSecretBodySchema>;

export const SecretParamsSchema = Closed({ id: NamespaceIdSchema, secretId: SecretIdSchema });

export const SecretSchema = Closed({
  id: SecretIdSchema,
  namespaceId: NamespaceIdSchema,
  name: Type.String(),
  version: Type.Integer({ minimum: 1, description: "Grows by one with every new value." }),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type SecretView = Static<typeof SecretSchema>;
