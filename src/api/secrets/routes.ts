/**
 * The Secret routes (drivers.md §2): metadata out, values only in. Handlers only translate: HTTP in, a service call,
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
  SecretParamsSchema,
  SecretSchema,
  CreateSecretBodySchema,
  presentSecret,
  UpdateSecretBodySchema,
} from "./schemas.js";
import {
  createSecret,
  deleteSecret,
  listNamespaceSecrets,
  readSecret,
  updateSecret,
} from "./service.js";

const tags = ["secrets"];
const security = [{ apiKey: [] }];
const COLLECTION = "/namespaces/:id/secrets";
const ITEM = `${COLLECTION}/:secretId`;

export const secretRoutes: FastifyPluginCallbackTypebox<TenantServiceDeps> = (app, deps, done) => {
  app.post(
    COLLECTION,
    {
      schema: {
        tags,
        security,
        summary:
          "Create a Secret (201); the value goes to a Kubernetes Secret and is never returned.",
        params: NamespaceScopedParamsSchema,
        body: CreateSecretBodySchema,
        response: {
          201: DataEnvelope(SecretSchema),
          ...errorResponses(403, 404, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const c = await createSecret(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        request.body,
      );
      return reply.status(201).send(envelope(request, presentSecret(c)));
    },
  );

  app.get(
    COLLECTION,
    {
      schema: {
        tags,
        security,
        summary:
          "List a Namespace's Secrets (metadata), each verified against its Kubernetes Secret.",
        params: NamespaceScopedParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: PageEnvelope(SecretSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const after =
        request.query.cursor === undefined
          ? undefined
          : decodeCursor(request.query.cursor, isResourceId("secret"));
      const page = await listNamespaceSecrets(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        {
          limit: pageLimit(request.query.limit),
          after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
        },
      );
      const next = page.next === null ? null : encodeCursor(page.next.createdAt, page.next.id);
      return pageEnvelope(request, page.items.map(presentSecret), next);
    },
  );

  app.get(
    ITEM,
    {
      schema: {
        tags,
        security,
        summary: "Read one Secret's metadata (503 when its Kubernetes Secret was altered).",
        params: SecretParamsSchema,
        response: { 200: DataEnvelope(SecretSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { secretId } = request.params;
      const c = await readSecret(deps, callerOf(request), namespaceIdOf(request.params), secretId);
      return envelope(request, presentSecret(c));
    },
  );

  app.patch(
    ITEM,
    {
      schema: {
        tags,
        security,
        summary: "Replace a Secret's value (version + 1).",
        params: SecretParamsSchema,
        body: UpdateSecretBodySchema,
        response: {
          200: DataEnvelope(SecretSchema),
          ...errorResponses(403, 404, 409, 413, 415),
        },
      },
    },
    async (request) => {
      const { secretId } = request.params;
      const c = await updateSecret(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        secretId,
        request.body,
      );
      return envelope(request, presentSecret(c));
    },
  );

  app.delete(
    ITEM,
    {
      schema: {
        tags,
        security,
        summary: "Delete a Secret and its Kubernetes Secret (204).",
        params: SecretParamsSchema,
        response: { 204: { type: "null" }, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { secretId } = request.params;
      await deleteSecret(deps, callerOf(request), namespaceIdOf(request.params), secretId);
      return reply.status(204).send();
    },
  );
  done();
};
