/**
 * The Namespace routes (control-plane.md §2). Handlers only translate: HTTP in, a service call,
 * the envelope out. The check order lives in the services (`create.ts`, `delete.ts`,
 * `read.ts`), which bootstrap and the CLI share.
 */
import type { NamespaceRecord } from "../../store/namespaces.js";
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { isPreprovisionedNamespaceId } from "../../domain/placement/ids.js";
import { encodeCursor, decodeCursor, pageLimit } from "../../services/cursor.js";
import { DataEnvelope, PageEnvelope, PageQuerySchema } from "../../contract/envelopes.js";
import { errorResponses } from "../schemas.js";
import { callerOf, envelope, pageEnvelope } from "../request-context.js";
import { createNamespace } from "../../services/namespaces/create.js";
import { deleteNamespace } from "../../services/namespaces/delete.js";
import type { NamespaceServiceDeps } from "../../services/namespaces/deps.js";
import { listReadableNamespaces, readNamespace } from "../../services/namespaces/read.js";
import { retryNamespacePlacement } from "../../services/namespaces/retry.js";
import {
  CreateNamespaceBodySchema,
  NamespaceParamsSchema,
  NamespaceSchema,
} from "../../contract/namespaces.js";
import { presentNamespace } from "./present.js";

const tags = ["namespaces"];
const security = [{ apiKey: [] }];

export const namespaceRoutes: FastifyPluginCallbackTypebox<NamespaceServiceDeps> = (
  app,
  deps,
  done,
) => {
  const present = (record: NamespaceRecord) =>
    presentNamespace(record, deps.preprovisionedNamespaceId);
  app.post(
    "/namespaces",
    {
      schema: {
        tags,
        security,
        summary: "Create a Namespace (201, status provisioning; the worker places it).",
        body: CreateNamespaceBodySchema,
        response: { 201: DataEnvelope(NamespaceSchema), ...errorResponses(403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const created = await createNamespace(deps, callerOf(request), request.body);
      return reply.status(201).send(envelope(request, present(created)));
    },
  );

  app.get(
    "/namespaces",
    {
      schema: {
        tags,
        security,
        summary: "List the Namespaces the caller may read (filtered, never 403).",
        querystring: PageQuerySchema,
        response: { 200: PageEnvelope(NamespaceSchema), ...errorResponses() },
      },
    },
    async (request) => {
      const after =
        request.query.cursor === undefined
          ? undefined
          : decodeCursor(request.query.cursor, isPreprovisionedNamespaceId);
      const page = await listReadableNamespaces(deps, callerOf(request), {
        limit: pageLimit(request.query.limit),
        after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
      });
      const next = page.next === null ? null : encodeCursor(page.next.createdAt, page.next.id);
      return pageEnvelope(request, page.items.map(present), next);
    },
  );

  app.get(
    "/namespaces/:id",
    {
      schema: {
        tags,
        security,
        summary: "Read one Namespace, with its placement and status reason.",
        params: NamespaceParamsSchema,
        response: { 200: DataEnvelope(NamespaceSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const id = request.params.id;
      if (!isPreprovisionedNamespaceId(id)) throw new Error("schema admitted a bad Namespace ID");
      return envelope(request, present(await readNamespace(deps, callerOf(request), id)));
    },
  );

  app.delete(
    "/namespaces/:id",
    {
      schema: {
        tags,
        security,
        summary:
          "Delete a Namespace (202, status deleting; repeat is a no-op, retries a failed teardown).",
        params: NamespaceParamsSchema,
        response: { 202: DataEnvelope(NamespaceSchema), ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      if (!isPreprovisionedNamespaceId(id)) throw new Error("schema admitted a bad Namespace ID");
      const result = await deleteNamespace(deps, callerOf(request), id);
      return reply.status(202).send(envelope(request, present(result.namespace)));
    },
  );
  app.post(
    "/namespaces/:id/retry",
    {
      schema: {
        tags,
        security,
        summary:
          "Retry a failed or degraded Namespace (administrators; 202, status provisioning): every placement check runs again under the same ID.",
        params: NamespaceParamsSchema,
        response: { 202: DataEnvelope(NamespaceSchema), ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      if (!isPreprovisionedNamespaceId(id)) throw new Error("schema admitted a bad Namespace ID");
      const retried = await retryNamespacePlacement(deps, callerOf(request), id);
      return reply.status(202).send(envelope(request, present(retried)));
    },
  );
  done();
};
