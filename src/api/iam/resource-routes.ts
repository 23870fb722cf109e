/**
 * The create, read, list and delete routes every IAM collection has, registered from what differs
 * between them: the URL, summary and audit action, the store call, and the record's schema
 * and presenter. Each runs in {@link administer} (a delete in {@link mutate}), so the
 * `installation:administer` check, denial audit and envelopes are the same on every route.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { Static, TObject, TSchema, TString } from "@sinclair/typebox";
import {
  asIamId,
  isIamId,
  type IamId,
  type IamRecordKind,
  type PrincipalId,
} from "../../domain/iam/ids.js";
import type { Db, Page, PageOptions, Queryable } from "../../services/handles.js";
import type { Caller } from "../../services/authorization.js";
import { ServiceError } from "../../services/errors.js";
import type { ErrorStatus } from "../errors.js";
import { nextCursor, pageOptions } from "../../services/cursor.js";
import {
  DataEnvelope,
  PageEnvelope,
  PageQuerySchema,
  type PageQuery,
} from "../../contract/envelopes.js";
import { errorResponses, type ApiTag, type OperationDoc } from "../schemas.js";
import { callerOf, envelope, pageEnvelope } from "../request-context.js";
import { administer, mutate, type Mutation } from "../../services/iam/administer.js";
import { IdParams, PrincipalIdSchema } from "../../contract/iam.js";
import { createRoute } from "../create-route.js";

/** The Fastify instance an IAM routes plugin registers on. */
export type IamApp = Parameters<FastifyPluginCallbackTypebox<{ readonly db: Db }>>[0];

/** A routes plugin over the database: `register` adds its routes to `app`. */
export function dbRoutes(
  register: (app: IamApp, db: Db) => void,
): FastifyPluginCallbackTypebox<{ readonly db: Db }> {
  return (app, { db }, done) => {
    register(app, db);
    done();
  };
}

/** The OpenAPI tag and security requirement of every IAM route. */
export const tags: ApiTag[] = ["iam"];
export const security = [{ apiKey: [] }];

/** One IAM record kind as its routes show it. */
export interface IamResource<K extends IamRecordKind, R, V extends TSchema> {
  /** The kind of ID in its `:id` path parameter and its list cursors. */
  readonly idKind: K;
  readonly idSchema: TString;
  /** The `resourceKind` of its audit events. */
  readonly resourceKind: string;
  /** The record as the API shows it, and how a stored record becomes that. */
  readonly schema: V;
  readonly present: (record: R) => Static<V>;
}

/** `resource` as given, its record type inferred from its presenter (src/services/iam). */
export function iamResource<K extends IamRecordKind, R, V extends TSchema>(
  resource: IamResource<K, R, V>,
): IamResource<K, R, V> {
  return resource;
}

// The 200 bodies, named as route generics: TS cannot derive them from a generic `V` schema.
type DataOf<T> = ReturnType<typeof envelope<T>>;
type PageOf<T> = ReturnType<typeof pageEnvelope<T>>;

/** What every route states: where it is, what the OpenAPI document says, what is audited. */
interface RouteBase {
  readonly url: string;
  /** The operation's ID, summary and description in the OpenAPI document. */
  readonly doc: OperationDoc;
  /** The audit action (`roles.read`). */
  readonly action: string;
}

/** The OpenAPI description of a route on one record (`…/:id`) that answers the record. */
function itemSchema<V extends TSchema>(
  resource: { readonly idSchema: TString; readonly schema: V },
  doc: OperationDoc,
  statuses: readonly ErrorStatus[],
) {
  return {
    tags,
    security,
    ...doc,
    params: IdParams(resource.idSchema),
    response: { 200: DataEnvelope(resource.schema), ...errorResponses(...statuses) },
  };
}

/** `POST` a collection: 201 with the record the administered use case `create` made. */
export function createOneRoute<K extends IamRecordKind, R, V extends TSchema, B extends TSchema>(
  app: IamApp,
  db: Db,
  resource: IamResource<K, R, V>,
  route: Omit<RouteBase, "action"> & {
    readonly body: B;
    /** The route's error statuses (`errorResponses`). */
    readonly statuses: readonly ErrorStatus[];
    readonly create: (db: Db, caller: Caller, body: Static<B>) => Promise<R>;
  },
): void {
  createRoute(app, {
    ...route,
    tags,
    security,
    schema: resource.schema,
    present: resource.present,
    create: (caller, body) => route.create(db, caller, body),
  });
}

/** `GET …/:id`: the record, or 404 with `notFound` when `get` finds none. */
export function getOneRoute<K extends IamRecordKind, R, V extends TSchema>(
  app: IamApp,
  db: Db,
  resource: IamResource<K, R, V>,
  route: RouteBase & {
    readonly notFound: string;
    readonly get: (q: Queryable, id: IamId<K>) => Promise<R | undefined>;
  },
): void {
  app.get<{ Params: { id: string }; Reply: DataOf<Static<V>> }>(
    route.url,
    {
      schema: itemSchema(resource, route.doc, [403, 404]),
    },
    async (request) => {
      const id = asIamId(resource.idKind, request.params.id);
      const found = await administer(
        db,
        callerOf(request),
        { action: route.action, resourceKind: resource.resourceKind, resourceId: id },
        () => route.get(db, id),
      );
      if (found === undefined) throw new ServiceError("NOT_FOUND", route.notFound);
      return envelope(request, resource.present(found));
    },
  );
}

/** What a list route's `list` may read from its request. */
export interface ListRequest<P extends TSchema, Q extends TSchema> {
  readonly params: Static<P>;
  readonly query: Static<Q>;
}

/**
 * `GET` a collection, one page at a time (`limit`, `cursor`). The cursor is decoded before
 * authorization (a bad one is 400 for any caller); `list` reads the page once the caller is
 * authorized, given the route's validated `params` and `query`.
 */
export function listPageRoute<
  K extends IamRecordKind,
  R,
  V extends TSchema,
  P extends TSchema = TObject,
  Q extends TSchema & { static: PageQuery } = typeof PageQuerySchema,
>(
  app: IamApp,
  db: Db,
  resource: IamResource<K, R, V>,
  route: RouteBase & {
    readonly params?: P;
    /** Default {@link PageQuerySchema}. */
    readonly querystring?: Q;
    readonly list: (
      q: Queryable,
      page: PageOptions,
      request: ListRequest<P, Q>,
    ) => Promise<Page<R>>;
  },
): void {
  app.get<{ Reply: PageOf<Static<V>> }>(
    route.url,
    {
      schema: {
        tags,
        security,
        ...route.doc,
        ...(route.params === undefined ? {} : { params: route.params }),
        querystring: route.querystring ?? PageQuerySchema,
        response: { 200: PageEnvelope(resource.schema), ...errorResponses(403) },
      },
    },
    async (request) => {
      // Fastify has validated both against the schemas above; the generics hide that from TS.
      const input = request as unknown as ListRequest<P, Q>;
      const page = pageOptions(input.query, isIamId(resource.idKind));
      const found = await administer(
        db,
        callerOf(request),
        { action: route.action, resourceKind: resource.resourceKind },
        () => route.list(db, page, input),
      );
      return pageEnvelope(request, found.items.map(resource.present), nextCursor(found.next));
    },
  );
}

/** `GET /principals/:id/…`: one principal's records, a page at a time (see {@link listPageRoute}). */
export function listOfPrincipalRoute<K extends IamRecordKind, R, V extends TSchema>(
  app: IamApp,
  db: Db,
  resource: IamResource<K, R, V>,
  route: RouteBase & {
    readonly list: (q: Queryable, principalId: PrincipalId, page: PageOptions) => Promise<Page<R>>;
  },
): void {
  listPageRoute(app, db, resource, {
    ...route,
    params: IdParams(PrincipalIdSchema),
    list: (q, page, { params }) => route.list(q, asIamId("principal", params.id), page),
  });
}

/**
 * `DELETE …/:id` as an administered mutation: `remove` runs in its transaction and reports
 * what it removed (or throws `ServiceError`: 404, or a refusal listed in `statuses`).
 */
export function deleteOneRoute<K extends IamRecordKind, R, V extends TSchema>(
  app: IamApp,
  db: Db,
  resource: IamResource<K, R, V>,
  route: RouteBase & {
    /** The route's error statuses (`errorResponses`). */
    readonly statuses: readonly ErrorStatus[];
    readonly remove: (tx: Queryable, id: IamId<K>, caller: Caller) => Promise<Mutation<R>>;
  },
): void {
  app.delete<{ Params: { id: string }; Reply: DataOf<Static<V>> }>(
    route.url,
    {
      schema: itemSchema(resource, route.doc, route.statuses),
    },
    async (request) => {
      const caller = callerOf(request);
      const id = asIamId(resource.idKind, request.params.id);
      const deleted = await mutate(
        db,
        caller,
        { action: route.action, resourceKind: resource.resourceKind, resourceId: id },
        (tx) => route.remove(tx, id, caller),
      );
      return envelope(request, resource.present(deleted));
    },
  );
}
