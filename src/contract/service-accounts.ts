/**
 * The ServiceAccount resource (drivers.md §3): `{id, name, credential?: {kind, secretRef}}`,
 * the name unique in the Namespace, `secretRef` a Secret of the same Namespace.
 */
import { Type, type Static } from "@sinclair/typebox";
import { tenantResourceIdPattern } from "../domain/tenant/resources.js";
import { CREDENTIAL_KINDS } from "../store/service-accounts.js";
import { NamespaceIdSchema } from "./namespaces.js";
import { SecretIdSchema } from "./secrets.js";
import { DisplayName, DateTime, IdString, literalUnion } from "./envelopes.js";

export const ServiceAccountIdSchema = IdString(
  tenantResourceIdPattern("serviceAccount").source,
  "A ServiceAccount ID (`sa_…`).",
);

const Credential = Type.Object(
  { kind: literalUnion(CREDENTIAL_KINDS), secretRef: SecretIdSchema },
  { additionalProperties: false },
);

export const CreateServiceAccountBodySchema = Type.Object(
  { name: DisplayName({ maxLength: 200 }), credential: Type.Optional(Credential) },
  { additionalProperties: false },
);
export type CreateServiceAccountBody = Static<typeof CreateServiceAccountBodySchema>;

export const ServiceAccountParamsSchema = Type.Object(
  { id: NamespaceIdSchema, serviceAccountId: ServiceAccountIdSchema },
  { additionalProperties: false },
);

export const ServiceAccountSchema = Type.Object(
  {
    id: ServiceAccountIdSchema,
    namespaceId: NamespaceIdSchema,
    name: Type.String(),
    credential: Type.Optional(Credential),
    createdAt: DateTime,
  },
  { additionalProperties: false },
);
export type ServiceAccountView = Static<typeof ServiceAccountSchema>;
