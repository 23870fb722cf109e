/**
 * The create, list, read, update and delete routes of a Namespace resource collection
 * (Configurations, Secrets, ServiceAccounts; an Agent's create, list and read), registered
 * from what differs between kinds: the path, the schemas, the summaries and the service.
 * Handlers only translate — HTTP in, a service call, the envelope out; the check order lives
 * in each kind's service.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { Static, TSchema } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import type { Page, PageOptions } from "../../services/handles.js";
import { callerOf, envelope, pageEnvelope } from "../request-context.js";
import { DataEnvelope, PageEnvelope, PageQuerySchema } from "../../contract/envelopes.js";
import { nextCursor, pageOptions } from "../../services/cursor.js";
import { errorResponses, routeSchema, type ApiTag, type OperationDoc } from "../schemas.js";
import type { TenantServiceDeps } from "../../services/tenant/access.js";
import type { NamespaceCall } from "../../services/tenant/resource-access.js";
import { namespaceIdOf } from "./params.js";
import { NamespaceScopedParamsSchema } from "../../contract/namespaces.js";

/** The Fastify instance a resource routes plugin registers on. */
export type TenantApp = Parameters<FastifyPluginCallbackTypebox<TenantServiceDeps>>[0];

/** The calls the routes make; `update` and `remove` only where the kind has that route. */
export interface RoutedService<R, C, U, D extends TenantServiceDeps> {
  readonly create: (call: NamespaceCall<D>, body: C) => Promise<R>;
  readonly list: (call: NamespaceCall<D>, opts: PageOptions) => Promise<Page<R>>;
  readonly read: (call: NamespaceCall<D>, id: string) => Promise<R>;
  readonly update?: (call: NamespaceCall<D>, id: string, body: U) => Promise<R>;
  readonly remove?: (call: NamespaceCall<D>, id: string) => Promise<void>;
}

/** One Namespace resource kind as its routes show it. */
export interface TenantResource<
  R,
  V extends TSchema,
  C extends TSchema,
  U extends TSchema,
  D extends TenantServiceDeps,
> {
  /** The collection is `/namespaces/:id/<path>`, its OpenAPI tag `<path>`. */
  readonly path: ApiTag;
  /** An item is at `…/:<idParam>`, checked by `itemParams`. */
  readonly idParam: string;
  readonly itemParams: TSchema;
  /** The guard of the IDs in paging cursors. */
  readonly isId: (v: unknown) => v is string;
  /** The resource as the API shows it, and how a service result becomes that. */
  readonly schema: V;
  readonly present: (item: R) => Static<V>;
  readonly bodies: { readonly create: C; readonly update?: U };
  readonly service: RoutedService<R, Static<C>, Static<U>, D>;
  /** Each route's operation in the OpenAPI document. */
  readonly operations: {
    readonly create: OperationDoc;
    readonly list: OperationDoc;
    readonly read: OperationDoc;
    readonly update?: OperationDoc;
    readonly remove?: OperationDoc;
  };
}

/** An item path's parameters: the Namespace `id` and the resource's own ID parameter. */
interface ItemParams {
  readonly id: string;
  readonly [param: string]: string | undefined;
}

/**
 * Registers the kind's routes: `POST` the collection (201), `GET` it one page at a time
 * (`limit`, `cursor`; a bad cursor is 400), `GET` one item, and where the kind has them
 * `PATCH` one item (200) and `DELETE` it (204).
 */
export function resourceRoutes<
  R,
  V extends TSchema,
  C extends TSchema,
  U extends TSchema,
  D extends TenantServiceDeps,
>(app: TenantApp, deps: D, r: TenantResource<R, V, C, U, D>): void {
  const { service, operations } = r;
  const tags: ApiTag[] = [r.path];
  const collection = `/namespaces/:id/${r.path}`;
  const item = `${collection}/:${r.idParam}`;
  const data = DataEnvelope(r.schema);

  const callOf = (request: FastifyRequest, params: { readonly id: string }) => ({
    deps,
    caller: callerOf(request),
    namespaceId: namespaceIdOf(params),
  });
  const itemIdOf = (params: ItemParams): string => {
    const id = params[r.idParam];
    if (id === undefined) throw new Error(`schema admitted no ${r.idParam}`);
    return id;
  };

  app.post<{ Params: { readonly id: string }; Body: Static<C> }>(
    collection,
    {
      schema: {
        ...routeSchema(tags, operations.create, NamespaceScopedParamsSchema, {
          201: data,
          ...errorResponses(403, 404, 409, 413, 415),
        }),
        body: r.bodies.create,
      },
    },
    async (request, reply) => {
      const created = await service.create(callOf(request, request.params), request.body);
      return reply.status(201).send(envelope(request, r.present(created)));
    },
  );
  app.get(
    collection,
    {
      schema: {
        ...routeSchema(tags, operations.list, NamespaceScopedParamsSchema, {
          200: PageEnvelope(r.schema),
          ...errorResponses(403, 404),
        }),
        querystring: PageQuerySchema,
      },
    },
    async (request) => {
      const page = await service.list(
        callOf(request, request.params),
        pageOptions(request.query, r.isId),
      );
      return pageEnvelope(request, page.items.map(r.present), nextCursor(page.next));
    },
  );
  app.get<{ Params: ItemParams }>(
    item,
    {
      schema: {
        ...routeSchema(tags, operations.read, r.itemParams, {
          200: data,
          ...errorResponses(403, 404),
        }),
      },
    },
    async (request) => {
      const found = await service.read(callOf(request, request.params), itemIdOf(request.params));
      return envelope(request, r.present(found));
    },
  );
  const { update, remove } = service;
  if (update !== undefined && r.bodies.update !== undefined && operations.update !== undefined) {
    app.patch<{ Params: ItemParams; Body: Static<U> }>(
      item,
      {
        schema: {
          ...routeSchema(tags, operations.update, r.itemParams, {
            200: data,
            ...errorResponses(403, 404, 409, 413, 415),
          }),
          body: r.bodies.update,
        },
      },
      async (request) => {
        const id = itemIdOf(request.params);
        const updated = await update(callOf(request, request.params), id, request.body);
        return envelope(request, r.present(updated));
      },
    );
  }
  if (remove !== undefined && operations.remove !== undefined) {
    app.delete<{ Params: ItemParams }>(
      item,
      {
        schema: {
          ...routeSchema(tags, operations.remove, r.itemParams, {
            204: { type: "null" },
            ...errorResponses(403, 404, 409),
          }),
        },
      },
      async (request, reply) => {
        await remove(callOf(request, request.params), itemIdOf(request.params));
        return reply.status(204).send();
      },
    );
  }
}
