/**
 * The Namespace routes (control-plane.md §2). Handlers only translate: HTTP in, a service call,
 * the envelope out. The check order lives in the services (`create.ts`, `delete.ts`,
 * `read.ts`), which bootstrap and the CLI share.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { isPreprovisionedNamespaceId, type NamespaceId } from "../../domain/placement/ids.js";
import type { Caller } from "../../services/authorization.js";
import { nextCursor, pageOptions } from "../../services/cursor.js";
import { DataEnvelope, PageEnvelope } from "../../contract/envelopes.js";
import {
  errorResponses,
  op,
  routeSchema,
  security,
  type ApiTag,
  type OperationDoc,
} from "../schemas.js";
import { callerOf, envelope, pageEnvelope } from "../request-context.js";
import { createNamespace } from "../../services/namespaces/create.js";
import { deleteNamespace } from "../../services/namespaces/delete.js";
import type { NamespaceServiceDeps } from "../../services/namespaces/deps.js";
import { listReadableNamespaces, readNamespace } from "../../services/namespaces/read.js";
import { retryNamespacePlacement } from "../../services/namespaces/retry.js";
import {
  CreateNamespaceBodySchema,
  NamespaceListQuerySchema,
  NamespaceParamsSchema,
  NamespaceSchema,
} from "../../contract/namespaces.js";
import { presentNamespace, type NamespaceRecord } from "../../services/namespaces/present.js";
import { namespaceIdOf } from "../tenant/params.js";
import { createRoute } from "../create-route.js";

const tags: ApiTag[] = ["namespaces"];

/** The OpenAPI description of a route on one Namespace (`/namespaces/:id…`). */
const itemSchema = <R extends object>(doc: OperationDoc, response: R) =>
  routeSchema(tags, doc, NamespaceParamsSchema, response);

export const namespaceRoutes: FastifyPluginCallbackTypebox<NamespaceServiceDeps> = (
  app,
  deps,
  done,
) => {
  const present = (record: NamespaceRecord) =>
    presentNamespace(record, deps.preprovisionedNamespaceId);
  createRoute(app, {
    security,
    url: "/namespaces",
    tags,
    doc: op(
      "createNamespace",
      "Create a Namespace",
      "Create a Namespace (201, status provisioning; the worker places it).",
    ),
    body: CreateNamespaceBodySchema,
    schema: NamespaceSchema,
    present,
    statuses: [403, 409, 413, 415],
    create: (caller, body) => createNamespace(deps, caller, body),
  });

  app.get(
    "/namespaces",
    {
      schema: {
        tags,
        security,
        ...op(
          "listNamespaces",
          "List Namespaces",
          "List the Namespaces the caller may read (filtered, never 403), oldest first; `status` keeps one status.",
        ),
        querystring: NamespaceListQuerySchema,
        response: { 200: PageEnvelope(NamespaceSchema), ...errorResponses() },
      },
    },
    async (request) => {
      const page = await listReadableNamespaces(deps, callerOf(request), {
        ...pageOptions(request.query, isPreprovisionedNamespaceId),
        status: request.query.status,
      });
      return pageEnvelope(request, page.items.map(present), nextCursor(page.next));
    },
  );

  app.get(
    "/namespaces/:id",
    {
      schema: itemSchema(
        op(
          "getNamespace",
          "Read a Namespace",
          "Read one Namespace, with its placement and status reason.",
        ),
        {
          200: DataEnvelope(NamespaceSchema),
          ...errorResponses(403, 404),
        },
      ),
    },
    async (request) => {
      const id = namespaceIdOf(request.params);
      return envelope(request, present(await readNamespace(deps, callerOf(request), id)));
    },
  );

  /** A change of one Namespace that the worker carries out: 202 with the Namespace as it is. */
  const acceptedRoute = (
    method: "DELETE" | "POST",
    url: string,
    doc: OperationDoc,
    change: (caller: Caller, id: NamespaceId) => Promise<NamespaceRecord>,
  ) =>
    app.route({
      method,
      url,
      schema: itemSchema(doc, {
        202: DataEnvelope(NamespaceSchema),
        ...errorResponses(403, 404, 409),
      }),
      handler: async (request, reply) => {
        const changed = await change(callerOf(request), namespaceIdOf(request.params));
        return reply.status(202).send(envelope(request, present(changed)));
      },
    });
  acceptedRoute(
    "DELETE",
    "/namespaces/:id",
    op(
      "deleteNamespace",
      "Delete a Namespace",
      "Delete a Namespace (202, status deleting; repeat is a no-op, retries a failed teardown).",
    ),
    async (caller, id) => (await deleteNamespace(deps, caller, id)).namespace,
  );
  acceptedRoute(
    "POST",
    "/namespaces/:id/retry",
    op(
      "retryNamespace",
      "Retry a Namespace's placement",
      "Retry a failed or degraded Namespace (administrators; 202, status provisioning): every placement check runs again under the same ID.",
    ),
    (caller, id) => retryNamespacePlacement(deps, caller, id),
  );
  done();
};
