/**
 * The Configuration routes (drivers.md §1). Handlers only translate: HTTP in, a service call,
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
  ConfigurationParamsSchema,
  ConfigurationSchema,
  CreateConfigurationBodySchema,
  presentConfiguration,
  UpdateConfigurationBodySchema,
} from "./schemas.js";
import {
  createConfiguration,
  deleteConfiguration,
  listNamespaceConfigurations,
  readConfiguration,
  updateConfiguration,
} from "./service.js";

const tags = ["configurations"];
const security = [{ apiKey: [] }];
const COLLECTION = "/namespaces/:id/configurations";
const ITEM = `${COLLECTION}/:configurationId`;

export const configurationRoutes: FastifyPluginCallbackTypebox<TenantServiceDeps> = (
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
        summary:
          "Create a Configuration (201); its document goes to a ConfigMap in the bound namespace.",
        params: NamespaceScopedParamsSchema,
        body: CreateConfigurationBodySchema,
        response: {
          201: DataEnvelope(ConfigurationSchema),
          ...errorResponses(403, 404, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const c = await createConfiguration(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        request.body,
      );
      return reply.status(201).send(envelope(request, presentConfiguration(c.record, c.document)));
    },
  );

  app.get(
    COLLECTION,
    {
      schema: {
        tags,
        security,
        summary: "List a Namespace's Configurations, each verified against its ConfigMap.",
        params: NamespaceScopedParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: PageEnvelope(ConfigurationSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const after =
        request.query.cursor === undefined
          ? undefined
          : decodeCursor(request.query.cursor, isResourceId("configuration"));
      const page = await listNamespaceConfigurations(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        {
          limit: pageLimit(request.query.limit),
          after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
        },
      );
      const next = page.next === null ? null : encodeCursor(page.next.createdAt, page.next.id);
      return pageEnvelope(
        request,
        page.items.map((c) => presentConfiguration(c.record, c.document)),
        next,
      );
    },
  );

  app.get(
    ITEM,
    {
      schema: {
        tags,
        security,
        summary: "Read one Configuration (503 when its ConfigMap was altered: never repaired).",
        params: ConfigurationParamsSchema,
        response: { 200: DataEnvelope(ConfigurationSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { configurationId } = request.params;
      const c = await readConfiguration(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        configurationId,
      );
      return envelope(request, presentConfiguration(c.record, c.document));
    },
  );

  app.patch(
    ITEM,
    {
      schema: {
        tags,
        security,
        summary: "Replace a Configuration's document (generation + 1).",
        params: ConfigurationParamsSchema,
        body: UpdateConfigurationBodySchema,
        response: {
          200: DataEnvelope(ConfigurationSchema),
          ...errorResponses(403, 404, 409, 413, 415),
        },
      },
    },
    async (request) => {
      const { configurationId } = request.params;
      const c = await updateConfiguration(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        configurationId,
        request.body,
      );
      return envelope(request, presentConfiguration(c.record, c.document));
    },
  );

  app.delete(
    ITEM,
    {
      schema: {
        tags,
        security,
        summary: "Delete a Configuration and its ConfigMap (204).",
        params: ConfigurationParamsSchema,
        response: { 204: { type: "null" }, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { configurationId } = request.params;
      await deleteConfiguration(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        configurationId,
      );
      return reply.status(204).send();
    },
  );
  done();
};
