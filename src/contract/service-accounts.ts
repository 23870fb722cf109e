/**
 * The ServiceAccount resource (drivers.md §3): `{id, name, credential?: {kind, secretRef}}`,
 * the name unique in the Namespace, `secretRef` a Secret of the same Namespace.
 */
import { Type, type Static } from "@sinclair/typebox";
import { tenantResourceIdPattern } from "../domain/tenant/resources.js";
import { CREDENTIAL_KINDS } from "../domain/tenant/vocabulary.js";
import { NamespaceIdSchema } from "./namespaces.js";
import { SecretIdSchema } from "./secrets.js";
import { Closed, DisplayName, DateTime, IdString, literalUnion } from "./envelopes.js";

export const ServiceAccountIdSchema = IdString(
  tenantResourceIdPattern("serviceAccount").source,
  "A ServiceAccount ID (`sa_…`).",
);

const Credential = Closed({ kind: literalUnion(CREDENTIAL_KINDS), secretRef: SecretIdSchema });

export const CreateServiceAccountBodySchema = Closed(
  { name: DisplayName({ maxLength: 200 }), credential: Type.Optional(Credential) },
  {
    examples: [
      {
        name: "model provider",
        credential: { kind: "api_key", secretRef: "sec_3f1e9a2b-7c4d-4e8f-a1b2-c3d4e5f60718" },
      },
    ],
  },
);
export type CreateServiceAccountBody = Static<typeof CreateServiceAccountBodySchema>;

export const ServiceAccountParamsSchema = Closed({
  id: NamespaceIdSchema,
  serviceAccountId: ServiceAccountIdSchema,
});

export const ServiceAccountSchema = Closed({
  id: ServiceAccountIdSchema,
  namespaceId: NamespaceIdSchema,
  name: Type.String(),
  credential: Type.Optional(Credential),
  createdAt: DateTime,
});
export type ServiceAccountView = Static<typeof ServiceAccountSchema>;
