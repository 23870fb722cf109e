/**
 * The create, list, read, update and delete routes every Namespace resource collection has
 * (Configurations, Secrets, ServiceAccounts), registered from what differs between them: the
 * URL, tags and schemas, the summary, and the service call. Handlers only translate — HTTP
 * in, a service call, the envelope out; the check order lives in each resource's service.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { Static, TSchema } from "@sinclair/typebox";
import type { NamespaceId } from "../../domain/placement/ids.js";
import type { TenantResourceKind } from "../../domain/tenant/resources.js";
import type { ResourcePage, ResourcePageOptions } from "../../store/resource-paging.js";
import type { Caller } from "../../services/authorization.js";
import { callerOf, envelope, pageEnvelope } from "../request-context.js";
import { DataEnvelope, PageEnvelope, PageQuerySchema } from "../../contract/envelopes.js";
import { decodeCursor, encodeCursor, pageLimit } from "../../services/cursor.js";
import { errorResponses } from "../schemas.js";
import type { TenantServiceDeps } from "../../services/tenant/access.js";
import { isResourceId, namespaceIdOf } from "./params.js";
import { NamespaceScopedParamsSchema } from "../../contract/namespaces.js";

/** The Fastify instance a resource routes plugin registers on. */
export type TenantApp = Parameters<FastifyPluginCallbackTypebox<TenantServiceDeps>>[0];

const security = [{ apiKey: [] }];

/** One Namespace resource kind as its routes show it. */
export interface TenantResource<R, V extends TSchema> {
  readonly tags: string[];
  /** The kind of ID in its paging cursors. */
  readonly kind: TenantResourceKind;
  /** `/namespaces/:id/<collection>`; an item is at `…/:<idParam>`, checked by `itemParams`. */
  readonly collection: string;
  readonly idParam: string;
  readonly itemParams: TSchema;
  /** The resource as the API shows it, and how a service result becomes that. */
  readonly schema: V;
  readonly present: (item: R) => Static<V>;
}

/** A service call on one Namespace, as every resource service is shaped. */
type OnNamespace<A extends unknown[], T> = (
  deps: TenantServiceDeps,
  caller: Caller,
  namespaceId: NamespaceId,
  ...args: A
) => Promise<T>;

/** An item path's parameters: the Namespace `id` and the resource's own ID parameter. */
interface ItemParams {
  readonly id: string;
  readonly [param: string]: string | undefined;
}

/** The resource ID of an item path the schema already checked. */
function itemIdOf(params: ItemParams, resource: { readonly idParam: string }): string {
  const id = params[resource.idParam];
  if (id === undefined) throw new Error(`schema admitted no ${resource.idParam}`);
  return id;
}

const itemUrl = (r: { collection: string; idParam: string }) => `${r.collection}/:${r.idParam}`;

/** `POST` the collection: 201 with the created resource. */
export function createRoute<R, V extends TSchema, B extends TSchema>(
  app: TenantApp,
  deps: TenantServiceDeps,
  resource: TenantResource<R, V>,
  route: {
    readonly summary: string;
    readonly body: B;
    readonly create: OnNamespace<[Static<B>], R>;
  },
): void {
  app.post<{ Params: { readonly id: string }; Body: Static<B> }>(
    resource.collection,
    {
      schema: {
        tags: resource.tags,
        security,
        summary: route.summary,
        params: NamespaceScopedParamsSchema,
        body: route.body,
        response: {
          201: DataEnvelope(resource.schema),
          ...errorResponses(403, 404, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const c = await route.create(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        request.body,
      );
      return reply.status(201).send(envelope(request, resource.present(c)));
    },
  );
}

/** `GET` the collection, one page at a time (`limit`, `cursor`; a bad cursor is 400). */
export function listRoute<R, V extends TSchema>(
  app: TenantApp,
  deps: TenantServiceDeps,
  resource: TenantResource<R, V>,
  route: {
    readonly summary: string;
    readonly list: OnNamespace<[ResourcePageOptions], ResourcePage<R>>;
  },
): void {
  app.get(
    resource.collection,
    {
      schema: {
        tags: resource.tags,
        security,
        summary: route.summary,
        params: NamespaceScopedParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: PageEnvelope(resource.schema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const after =
        request.query.cursor === undefined
          ? undefined
          : decodeCursor(request.query.cursor, isResourceId(resource.kind));
      const page = await route.list(deps, callerOf(request), namespaceIdOf(request.params), {
        limit: pageLimit(request.query.limit),
        after: after === undefined ? undefined : { createdAt: after.time, id: after.id },
      });
      const next = page.next === null ? null : encodeCursor(page.next.createdAt, page.next.id);
      return pageEnvelope(request, page.items.map(resource.present), next);
    },
  );
}

/** `GET` one resource. */
export function readRoute<R, V extends TSchema>(
  app: TenantApp,
  deps: TenantServiceDeps,
  resource: TenantResource<R, V>,
  route: { readonly summary: string; readonly read: OnNamespace<[string], R> },
): void {
  app.get<{ Params: ItemParams }>(
    itemUrl(resource),
    {
      schema: {
        tags: resource.tags,
        security,
        summary: route.summary,
        params: resource.itemParams,
        response: { 200: DataEnvelope(resource.schema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const itemId = itemIdOf(request.params, resource);
      const c = await route.read(deps, callerOf(request), namespaceIdOf(request.params), itemId);
      return envelope(request, resource.present(c));
    },
  );
}

/** `PATCH` one resource: 200 with the updated resource. */
export function updateRoute<R, V extends TSchema, B extends TSchema>(
  app: TenantApp,
  deps: TenantServiceDeps,
  resource: TenantResource<R, V>,
  route: {
    readonly summary: string;
    readonly body: B;
    readonly update: OnNamespace<[string, Static<B>], R>;
  },
): void {
  app.patch<{ Params: ItemParams; Body: Static<B> }>(
    itemUrl(resource),
    {
      schema: {
        tags: resource.tags,
        security,
        summary: route.summary,
        params: resource.itemParams,
        body: route.body,
        response: {
          200: DataEnvelope(resource.schema),
          ...errorResponses(403, 404, 409, 413, 415),
        },
      },
    },
    async (request) => {
      const itemId = itemIdOf(request.params, resource);
      const c = await route.update(
        deps,
        callerOf(request),
        namespaceIdOf(request.params),
        itemId,
        request.body,
      );
      return envelope(request, resource.present(c));
    },
  );
}

/** `DELETE` one resource: 204. */
export function deleteRoute<R, V extends TSchema>(
  app: TenantApp,
  deps: TenantServiceDeps,
  resource: TenantResource<R, V>,
  route: { readonly summary: string; readonly remove: OnNamespace<[string], void> },
): void {
  app.delete<{ Params: ItemParams }>(
    itemUrl(resource),
    {
      schema: {
        tags: resource.tags,
        security,
        summary: route.summary,
        params: resource.itemParams,
        response: { 204: { type: "null" }, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      const itemId = itemIdOf(request.params, resource);
      await route.remove(deps, callerOf(request), namespaceIdOf(request.params), itemId);
      return reply.status(204).send();
    },
  );
}
