/**
 * API keys of a principal: issue (the key is in that response only), list (metadata only) and
 * revoke. No route ever returns a key's hash.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { issueApiKey, listApiKeys, revokeApiKey } from "../../iam/api-keys.js";
import { asIamId, isApiKeyId } from "../../iam/ids.js";
import { getPrincipal } from "../../iam/principals.js";
import type { Db } from "../../store/db.js";
import { ApiError } from "../errors.js";
import {
  decodeCursor,
  pageLimit,
  DataEnvelope,
  errorResponses,
  PageEnvelope,
  PageQuerySchema,
} from "../schemas.js";
import { callerOf, envelope, pageEnvelope } from "../request-context.js";
import { administer, mutate, nextCursor } from "./administer.js";
import { presentApiKey } from "./present.js";
import {
  ApiKeyIdSchema,
  ApiKeySchema,
  CreateApiKeyBodySchema,
  IdParams,
  IssuedApiKeySchema,
  PrincipalIdSchema,
} from "./schemas.js";

const tags = ["iam"];
const security = [{ apiKey: [] }];
const resourceKind = "api_key";

export const apiKeyRoutes: FastifyPluginCallbackTypebox<{ readonly db: Db }> = (
  app,
  { db },
  done,
) => {
  app.post(
    "/principals/:id/api-keys",
    {
      schema: {
        tags,
        security,
        summary: "Issue an API key for a principal; the key is shown in this response only.",
        params: IdParams(PrincipalIdSchema),
        body: CreateApiKeyBodySchema,
        response: { 201: DataEnvelope(IssuedApiKeySchema), ...errorResponses(403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const principalId = asIamId("principal", request.params.id);
      const expiresAt =
        request.body.expiresAt === undefined ? null : new Date(request.body.expiresAt);
      if (expiresAt !== null && expiresAt.getTime() <= Date.now()) {
        throw new ApiError("INVALID_REQUEST", "expiresAt must lie in the future.", {
          details: [{ path: "/body/expiresAt", code: "out_of_range" }],
        });
      }
      const issued = await mutate(
        db,
        callerOf(request),
        { action: "api_keys.create", resourceKind },
        async (tx) => {
          if ((await getPrincipal(tx, principalId, { forUpdate: true })) === undefined) {
            throw new ApiError("NOT_FOUND", "No such principal.");
          }
          const key = await issueApiKey(tx, {
            principalId,
            ...(request.body.description === undefined
              ? {}
              : { description: request.body.description }),
            expiresAt,
          });
          return {
            result: key,
            resourceId: key.record.id,
            details: { principalId, prefix: key.record.prefix },
          };
        },
      );
      return reply
        .status(201)
        .send(envelope(request, { ...presentApiKey(issued.record), key: issued.key }));
    },
  );

  app.get(
    "/principals/:id/api-keys",
    {
      schema: {
        tags,
        security,
        summary: "List a principal's API keys (metadata only, revoked ones included).",
        params: IdParams(PrincipalIdSchema),
        querystring: PageQuerySchema,
        response: { 200: PageEnvelope(ApiKeySchema), ...errorResponses(403) },
      },
    },
    async (request) => {
      const principalId = asIamId("principal", request.params.id);
      const { cursor, limit } = request.query;
      const after = cursor === undefined ? undefined : decodeCursor(cursor, isApiKeyId);
      const page = await administer(
        db,
        callerOf(request),
        { action: "api_keys.list", resourceKind },
        () =>
          listApiKeys(db, principalId, {
            limit: pageLimit(limit),
            after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
          }),
      );
      return pageEnvelope(request, page.items.map(presentApiKey), nextCursor(page.next));
    },
  );

  app.delete(
    "/api-keys/:id",
    {
      schema: {
        tags,
        security,
        summary: "Revoke an API key (revoking twice is a no-op).",
        params: IdParams(ApiKeyIdSchema),
        response: { 200: DataEnvelope(ApiKeySchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const id = asIamId("apiKey", request.params.id);
      const revoked = await mutate(
        db,
        callerOf(request),
        { action: "api_keys.revoke", resourceKind, resourceId: id },
        async (tx) => {
          const result = await revokeApiKey(tx, id);
          if (result.outcome === "not_found") throw new ApiError("NOT_FOUND", "No such API key.");
          return {
            result: result.key,
            resourceId: id,
            details: { alreadyRevoked: result.outcome === "already_revoked" },
          };
        },
      );
      return envelope(request, presentApiKey(revoked));
    },
  );
  done();
};
