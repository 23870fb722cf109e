/**
 * API keys of a principal: issue (the key is in that response only), list (metadata only) and
 * revoke. No route ever returns a key's hash.
 */
import { asIamId } from "../../domain/iam/ids.js";
import { DataEnvelope } from "../../contract/envelopes.js";
import { errorResponses, op } from "../schemas.js";
import { callerOf, envelope } from "../request-context.js";
import {
  issueApiKeyAsAdministrator,
  listApiKeys,
  revokeApiKeyStep,
} from "../../services/iam/api-keys.js";
import { presentApiKey } from "../../services/iam/present.js";
import {
  deleteOneRoute,
  iamResource,
  listOfPrincipalRoute,
  security,
  tags,
  dbRoutes,
} from "./resource-routes.js";
import {
  ApiKeyIdSchema,
  ApiKeySchema,
  CreateApiKeyBodySchema,
  IdParams,
  IssuedApiKeySchema,
  PrincipalIdSchema,
} from "../../contract/iam.js";

const apiKey = iamResource({
  idKind: "apiKey",
  idSchema: ApiKeyIdSchema,
  resourceKind: "api_key",
  schema: ApiKeySchema,
  present: presentApiKey,
});

export const apiKeyRoutes = dbRoutes((app, db) => {
  app.post(
    "/principals/:id/api-keys",
    {
      schema: {
        tags,
        security,
        ...op(
          "issueApiKey",
          "Issue an API key",
          "Issue an API key for a principal; the key is shown in this response only.",
        ),
        params: IdParams(PrincipalIdSchema),
        body: CreateApiKeyBodySchema,
        response: { 201: DataEnvelope(IssuedApiKeySchema), ...errorResponses(403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const issued = await issueApiKeyAsAdministrator(db, callerOf(request), {
        principalId: asIamId("principal", request.params.id),
        description: request.body.description,
        expiresAt: request.body.expiresAt === undefined ? null : new Date(request.body.expiresAt),
      });
      return reply
        .status(201)
        .send(envelope(request, { ...presentApiKey(issued.record), key: issued.key }));
    },
  );

  listOfPrincipalRoute(app, db, apiKey, {
    url: "/principals/:id/api-keys",
    doc: op(
      "listApiKeys",
      "List a principal's API keys",
      "List a principal's API keys (metadata only, revoked ones included).",
    ),
    action: "api_keys.list",
    list: listApiKeys,
  });

  deleteOneRoute(app, db, apiKey, {
    url: "/api-keys/:id",
    doc: op("revokeApiKey", "Revoke an API key", "Revoke an API key (revoking twice is a no-op)."),
    action: "api_keys.revoke",
    statuses: [403, 404],
    remove: revokeApiKeyStep,
  });
});
