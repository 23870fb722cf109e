/** `/principals`: create, list, read and delete users and service principals. */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { asIamId, isPrincipalId } from "../../iam/ids.js";
import {
  createPrincipal,
  deletePrincipal,
  getPrincipal,
  listPrincipals,
} from "../../iam/principals.js";
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
import { presentPrincipal } from "./present.js";
import {
  CreatePrincipalBodySchema,
  IdParams,
  PrincipalIdSchema,
  PrincipalSchema,
} from "./schemas.js";

const tags = ["iam"];
const security = [{ apiKey: [] }];
const resourceKind = "principal";

export const principalRoutes: FastifyPluginCallbackTypebox<{ readonly db: Db }> = (
  app,
  { db },
  done,
) => {
  app.post(
    "/principals",
    {
      schema: {
        tags,
        security,
        summary: "Create a principal (a user or a service).",
        body: CreatePrincipalBodySchema,
        response: { 201: DataEnvelope(PrincipalSchema), ...errorResponses(403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await mutate(
        db,
        callerOf(request),
        { action: "principals.create", resourceKind },
        async (tx) => {
          const result = await createPrincipal(tx, request.body);
          if (result.outcome === "name_in_use") {
            throw new ApiError("RESOURCE_CONFLICT", "A principal with this name already exists.");
          }
          return {
            result: result.principal,
            resourceId: result.principal.id,
            details: { kind: result.principal.kind },
          };
        },
      );
      return reply.status(201).send(envelope(request, presentPrincipal(created)));
    },
  );

  app.get(
    "/principals",
    {
      schema: {
        tags,
        security,
        summary: "List live principals.",
        querystring: PageQuerySchema,
        response: { 200: PageEnvelope(PrincipalSchema), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { cursor, limit } = request.query;
      const after = cursor === undefined ? undefined : decodeCursor(cursor, isPrincipalId);
      const page = await administer(
        db,
        callerOf(request),
        { action: "principals.list", resourceKind },
        () =>
          listPrincipals(db, {
            limit: pageLimit(limit),
            after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
          }),
      );
      return pageEnvelope(request, page.items.map(presentPrincipal), nextCursor(page.next));
    },
  );

  app.get(
    "/principals/:id",
    {
      schema: {
        tags,
        security,
        summary: "Read a live principal.",
        params: IdParams(PrincipalIdSchema),
        response: { 200: DataEnvelope(PrincipalSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const id = asIamId("principal", request.params.id);
      const found = await administer(
        db,
        callerOf(request),
        { action: "principals.read", resourceKind, resourceId: id },
        () => getPrincipal(db, id),
      );
      if (found === undefined) throw new ApiError("NOT_FOUND", "No such principal.");
      return envelope(request, presentPrincipal(found));
    },
  );

  app.delete(
    "/principals/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete a principal: it can no longer authenticate, and its API keys are revoked.",
        params: IdParams(PrincipalIdSchema),
        response: { 200: DataEnvelope(PrincipalSchema), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const id = asIamId("principal", request.params.id);
      const deleted = await mutate(
        db,
        caller,
        { action: "principals.delete", resourceKind, resourceId: id },
        async (tx) => {
          if (id === caller.principalId) {
            throw new ApiError(
              "RESOURCE_CONFLICT",
              "A principal cannot delete itself; ask another administrator.",
            );
          }
          const gone = await deletePrincipal(tx, id);
          if (gone === undefined) throw new ApiError("NOT_FOUND", "No such principal.");
          return { result: gone, resourceId: id };
        },
      );
      return envelope(request, presentPrincipal(deleted));
    },
  );
  done();
};
