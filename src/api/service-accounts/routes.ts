/**
 * The ServiceAccount routes (drivers.md §3): records only. Handlers only translate: HTTP in, a service call,
 * the envelope out; the check order lives in `service.ts`.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { callerOf, envelope, pageEnvelope } from "../request-context.js";
import {
  DataEnvelope,
  decodeCursor,
  encodeCursor,
  errorResponses,
  PageEnvelope,
  pageLimit,
  PageQuerySchema,
} from "../schemas.js";
import type { TenantServiceDeps } from "../tenant/access.js";
import { isResourceId, namespaceIdOf, NamespaceScopedParamsSchema } from "../tenant/params.js";
import {
  ServiceAccountParamsSchema,
  ServiceAccountSchema,
  CreateServiceAccountBodySchema,
  presentServiceAccount,
} from "./schemas.js";
import {
  createServiceAccount,
  deleteServiceAccount,
  listNamespaceServiceAccounts,
  readServiceAccount,
} from "./service.js";

const tags = ["service-accounts"];
const security = [{ apiKey: [] }];
const COLLECTION = "/namespaces/:id/service-accounts";
const ITEM = `${COLLECTION}/:serviceAccountId`;

export const serviceAccountRoutes: FastifyPluginCallbackTypebox<TenantServiceDeps> = (
  app,
  deps,
  done,
) => {
  app.post(
    COLLECTION,
    {
      schema: {
        tags,
        security,
        summary: "Create a ServiceAccount record (201).",
        params: NamespaceScopedParamsSchema,
        body: CreateServiceAccountBodySchema,
        response: {
          201: DataEnvelope(ServiceAccountSchema),
          ...errorResponses(403, 404, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const c = await createServiceAccount(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        request.body,
      );
      return reply.status(201).send(envelope(request, presentServiceAccount(c)));
    },
  );

  app.get(
    COLLECTION,
    {
      schema: {
        tags,
        security,
        summary: "List a Namespace's ServiceAccounts.",
        params: NamespaceScopedParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: PageEnvelope(ServiceAccountSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const after =
        request.query.cursor === undefined
          ? undefined
          : decodeCursor(request.query.cursor, isResourceId("serviceAccount"));
      const page = await listNamespaceServiceAccounts(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        {
          limit: pageLimit(request.query.limit),
          after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
        },
      );
      const next = page.next === null ? null : encodeCursor(page.next.createdAt, page.next.id);
      return pageEnvelope(request, page.items.map(presentServiceAccount), next);
    },
  );

  app.get(
    ITEM,
    {
      schema: {
        tags,
        security,
        summary: "Read one ServiceAccount.",
        params: ServiceAccountParamsSchema,
        response: { 200: DataEnvelope(ServiceAccountSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { serviceAccountId } = request.params;
      const c = await readServiceAccount(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        serviceAccountId,
      );
      return envelope(request, presentServiceAccount(c));
    },
  );

  app.delete(
    ITEM,
    {
      schema: {
        tags,
        security,
        summary: "Delete a ServiceAccount record (204).",
        params: ServiceAccountParamsSchema,
        response: { 204: { type: "null" }, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { serviceAccountId } = request.params;
      await deleteServiceAccount(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        serviceAccountId,
      );
      return reply.status(204).send();
    },
  );
  done();
};
