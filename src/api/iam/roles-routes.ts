/** `/roles`: create, list, read and delete roles (named sets of permissions). */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { asIamId, isRoleId } from "../../iam/ids.js";
import { createRole, deleteRole, getRole, listRoles } from "../../iam/roles.js";
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
import { presentRole } from "./present.js";
import { CreateRoleBodySchema, IdParams, RoleIdSchema, RoleSchema } from "./schemas.js";

const tags = ["iam"];
const security = [{ apiKey: [] }];
const resourceKind = "role";

export const roleRoutes: FastifyPluginCallbackTypebox<{ readonly db: Db }> = (
  app,
  { db },
  done,
) => {
  app.post(
    "/roles",
    {
      schema: {
        tags,
        security,
        summary: "Create a role. Its permissions are fixed; create another role to change them.",
        body: CreateRoleBodySchema,
        response: { 201: DataEnvelope(RoleSchema), ...errorResponses(403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await mutate(
        db,
        callerOf(request),
        { action: "roles.create", resourceKind },
        async (tx) => {
          const result = await createRole(tx, request.body);
          if (result.outcome === "name_in_use") {
            throw new ApiError("RESOURCE_CONFLICT", "A role with this name already exists.");
          }
          return { result: result.role, resourceId: result.role.id };
        },
      );
      return reply.status(201).send(envelope(request, presentRole(created)));
    },
  );

  app.get(
    "/roles",
    {
      schema: {
        tags,
        security,
        summary: "List roles with their permissions.",
        querystring: PageQuerySchema,
        response: { 200: PageEnvelope(RoleSchema), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { cursor, limit } = request.query;
      const after = cursor === undefined ? undefined : decodeCursor(cursor, isRoleId);
      const page = await administer(
        db,
        callerOf(request),
        { action: "roles.list", resourceKind },
        () =>
          listRoles(db, {
            limit: pageLimit(limit),
            after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
          }),
      );
      return pageEnvelope(request, page.items.map(presentRole), nextCursor(page.next));
    },
  );

  app.get(
    "/roles/:id",
    {
      schema: {
        tags,
        security,
        summary: "Read a role.",
        params: IdParams(RoleIdSchema),
        response: { 200: DataEnvelope(RoleSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const id = asIamId("role", request.params.id);
      const found = await administer(
        db,
        callerOf(request),
        { action: "roles.read", resourceKind, resourceId: id },
        () => getRole(db, id),
      );
      if (found === undefined) throw new ApiError("NOT_FOUND", "No such role.");
      return envelope(request, presentRole(found));
    },
  );

  app.delete(
    "/roles/:id",
    {
      schema: {
        tags,
        security,
        summary: "Delete a role that no binding uses.",
        params: IdParams(RoleIdSchema),
        response: { 200: DataEnvelope(RoleSchema), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const id = asIamId("role", request.params.id);
      const deleted = await mutate(
        db,
        callerOf(request),
        { action: "roles.delete", resourceKind, resourceId: id },
        async (tx) => {
          const result = await deleteRole(tx, id);
          if (result.outcome === "not_found") throw new ApiError("NOT_FOUND", "No such role.");
          if (result.outcome === "in_use") {
            throw new ApiError(
              "RESOURCE_CONFLICT",
              "The role is still bound; delete its bindings first.",
            );
          }
          return { result: result.role, resourceId: id };
        },
      );
      return envelope(request, presentRole(deleted));
    },
  );
  done();
};
