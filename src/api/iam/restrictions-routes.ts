/** `/restrictions`: deny matching requests whatever the bindings allow; list; remove. */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { isPreprovisionedNamespaceId } from "../../domain/ids.js";
import { asIamId, isRestrictionId } from "../../iam/ids.js";
import { createRestriction, deleteRestriction, listRestrictions } from "../../iam/restrictions.js";
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
import { presentRestriction } from "./present.js";
import {
  CreateRestrictionBodySchema,
  IdParams,
  RestrictionIdSchema,
  RestrictionSchema,
} from "./schemas.js";

const tags = ["iam"];
const security = [{ apiKey: [] }];
const resourceKind = "restriction";

export const restrictionRoutes: FastifyPluginCallbackTypebox<{ readonly db: Db }> = (
  app,
  { db },
  done,
) => {
  app.post(
    "/restrictions",
    {
      schema: {
        tags,
        security,
        summary:
          "Create a restriction. Omitted fields match anything; at least one of principalId, namespaceId, action, kind is required.",
        body: CreateRestrictionBodySchema,
        response: { 201: DataEnvelope(RestrictionSchema), ...errorResponses(403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      if (b.namespaceId !== undefined && !isPreprovisionedNamespaceId(b.namespaceId)) {
        throw new Error("schema admitted a bad Namespace ID");
      }
      const input = {
        principalId: b.principalId === undefined ? null : asIamId("principal", b.principalId),
        namespaceId: b.namespaceId ?? null,
        action: b.action ?? null,
        kind: b.kind ?? null,
        ...(b.description === undefined ? {} : { description: b.description }),
      };
      const created = await mutate(
        db,
        callerOf(request),
        { action: "restrictions.create", resourceKind },
        async (tx) => {
          const result = await createRestriction(tx, input);
          if (result.outcome === "unbounded") {
            throw new ApiError(
              "INVALID_REQUEST",
              "A restriction must name at least one of principalId, namespaceId, action, kind.",
            );
          }
          if (result.outcome === "missing")
            throw new ApiError("NOT_FOUND", `No such ${result.what}.`);
          const r = result.restriction;
          return {
            result: r,
            resourceId: r.id,
            details: {
              principalId: r.principalId,
              namespaceId: r.namespaceId,
              action: r.action,
              kind: r.kind,
            },
          };
        },
      );
      return reply.status(201).send(envelope(request, presentRestriction(created)));
    },
  );

  app.get(
    "/restrictions",
    {
      schema: {
        tags,
        security,
        summary: "List restrictions.",
        querystring: PageQuerySchema,
        response: { 200: PageEnvelope(RestrictionSchema), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { cursor, limit } = request.query;
      const after = cursor === undefined ? undefined : decodeCursor(cursor, isRestrictionId);
      const page = await administer(
        db,
        callerOf(request),
        { action: "restrictions.list", resourceKind },
        () =>
          listRestrictions(db, {
            limit: pageLimit(limit),
            after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
          }),
      );
      return pageEnvelope(request, page.items.map(presentRestriction), nextCursor(page.next));
    },
  );

  app.delete(
    "/restrictions/:id",
    {
      schema: {
        tags,
        security,
        summary: "Remove a restriction.",
        params: IdParams(RestrictionIdSchema),
        response: { 200: DataEnvelope(RestrictionSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const id = asIamId("restriction", request.params.id);
      const deleted = await mutate(
        db,
        callerOf(request),
        { action: "restrictions.delete", resourceKind, resourceId: id },
        async (tx) => {
          const gone = await deleteRestriction(tx, id);
          if (gone === undefined) throw new ApiError("NOT_FOUND", "No such restriction.");
          return { result: gone, resourceId: id };
        },
      );
      return envelope(request, presentRestriction(deleted));
    },
  );
  done();
};
