/** `/bindings`: give a principal a role Installation-wide or in one Namespace, list, remove. */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { isPreprovisionedNamespaceId, type NamespaceId } from "../../domain/ids.js";
import { createBinding, deleteBinding, getBinding, listBindings } from "../../iam/bindings.js";
import { asIamId, isBindingId } from "../../iam/ids.js";
import type { Db } from "../../store/db.js";
import { ApiError } from "../errors.js";
import { decodeCursor, pageLimit, DataEnvelope, errorResponses, PageEnvelope } from "../schemas.js";
import { callerOf, envelope, pageEnvelope } from "../request-context.js";
import { administer, mutate, nextCursor } from "./administer.js";
import { presentBinding } from "./present.js";
import {
  BindingIdSchema,
  BindingQuerySchema,
  BindingSchema,
  CreateBindingBodySchema,
  IdParams,
} from "./schemas.js";

const tags = ["iam"];
const security = [{ apiKey: [] }];
const resourceKind = "binding";

function namespaceIdOf(value: string | null | undefined): NamespaceId | null {
  if (value === null || value === undefined) return null;
  if (!isPreprovisionedNamespaceId(value)) throw new Error("schema admitted a bad Namespace ID");
  return value;
}

export const bindingRoutes: FastifyPluginCallbackTypebox<{ readonly db: Db }> = (
  app,
  { db },
  done,
) => {
  app.post(
    "/bindings",
    {
      schema: {
        tags,
        security,
        summary: "Bind a role to a principal, Installation-wide or in one Namespace.",
        body: CreateBindingBodySchema,
        response: { 201: DataEnvelope(BindingSchema), ...errorResponses(403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const input = {
        principalId: asIamId("principal", request.body.principalId),
        roleId: asIamId("role", request.body.roleId),
        namespaceId: namespaceIdOf(request.body.namespaceId),
      };
      const created = await mutate(
        db,
        callerOf(request),
        { action: "bindings.create", resourceKind },
        async (tx) => {
          const result = await createBinding(tx, input);
          if (result.outcome === "missing") {
            throw new ApiError("NOT_FOUND", `No such ${result.what}.`);
          }
          if (result.outcome === "duplicate") {
            throw new ApiError("RESOURCE_CONFLICT", "This binding already exists.");
          }
          const b = result.binding;
          return {
            result: b,
            resourceId: b.id,
            details: { principalId: b.principalId, roleId: b.roleId, namespaceId: b.namespaceId },
          };
        },
      );
      return reply.status(201).send(envelope(request, presentBinding(created)));
    },
  );

  app.get(
    "/bindings",
    {
      schema: {
        tags,
        security,
        summary: "List bindings, optionally of one principal, role or Namespace.",
        querystring: BindingQuerySchema,
        response: { 200: PageEnvelope(BindingSchema), ...errorResponses(403) },
      },
    },
    async (request) => {
      const q = request.query;
      const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, isBindingId);
      const filter = {
        principalId: q.principalId === undefined ? undefined : asIamId("principal", q.principalId),
        roleId: q.roleId === undefined ? undefined : asIamId("role", q.roleId),
        namespaceId: namespaceIdOf(q.namespaceId) ?? undefined,
      };
      const page = await administer(
        db,
        callerOf(request),
        { action: "bindings.list", resourceKind },
        () =>
          listBindings(db, filter, {
            limit: pageLimit(q.limit),
            after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
          }),
      );
      return pageEnvelope(request, page.items.map(presentBinding), nextCursor(page.next));
    },
  );

  app.get(
    "/bindings/:id",
    {
      schema: {
        tags,
        security,
        summary: "Read a binding.",
        params: IdParams(BindingIdSchema),
        response: { 200: DataEnvelope(BindingSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const id = asIamId("binding", request.params.id);
      const found = await administer(
        db,
        callerOf(request),
        { action: "bindings.read", resourceKind, resourceId: id },
        () => getBinding(db, id),
      );
      if (found === undefined) throw new ApiError("NOT_FOUND", "No such binding.");
      return envelope(request, presentBinding(found));
    },
  );

  app.delete(
    "/bindings/:id",
    {
      schema: {
        tags,
        security,
        summary: "Remove a binding.",
        params: IdParams(BindingIdSchema),
        response: { 200: DataEnvelope(BindingSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const id = asIamId("binding", request.params.id);
      const deleted = await mutate(
        db,
        callerOf(request),
        { action: "bindings.delete", resourceKind, resourceId: id },
        async (tx) => {
          const gone = await deleteBinding(tx, id);
          if (gone === undefined) throw new ApiError("NOT_FOUND", "No such binding.");
          return { result: gone, resourceId: id };
        },
      );
      return envelope(request, presentBinding(deleted));
    },
  );
  done();
};
