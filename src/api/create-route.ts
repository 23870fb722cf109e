/**
 * The `POST` that creates one record and answers 201 with it, as the API shows it: the IAM
 * collections and the Namespaces (created, or imported from an orphan) register theirs here.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { Static, TSchema } from "@sinclair/typebox";
import type { Caller } from "../services/authorization.js";
import { DataEnvelope } from "../contract/envelopes.js";
import type { ErrorStatus } from "./errors.js";
import { errorResponses, type ApiTag, type OperationDoc } from "./schemas.js";
import { callerOf, envelope } from "./request-context.js";

/** The Fastify instance a routes plugin registers on. */
export type RoutesApp = Parameters<FastifyPluginCallbackTypebox>[0];

/** What differs between create routes. */
export interface CreateRoute<B extends TSchema, V extends TSchema, R> {
  readonly url: string;
  readonly tags: ApiTag[];
  /** The route's security requirement (the IAM routes take API keys only). */
  readonly security: readonly Readonly<Record<string, readonly string[]>>[];
  /** The operation's ID, summary and description in the OpenAPI document. */
  readonly doc: OperationDoc;
  readonly body: B;
  /** The created record as the API shows it, and how `create`'s result becomes that. */
  readonly schema: V;
  readonly present: (record: R) => Static<V>;
  /** The route's error statuses (`errorResponses`). */
  readonly statuses: readonly ErrorStatus[];
  readonly create: (caller: Caller, body: Static<B>) => Promise<R>;
}

/** Registers `POST route.url`: 201 with the presented record `create` made. */
export function createRoute<B extends TSchema, V extends TSchema, R>(
  app: RoutesApp,
  route: CreateRoute<B, V, R>,
): void {
  app.post<{ Body: Static<B> }>(
    route.url,
    {
      schema: {
        tags: route.tags,
        security: route.security,
        ...route.doc,
        body: route.body,
        response: { 201: DataEnvelope(route.schema), ...errorResponses(...route.statuses) },
      },
    },
    async (request, reply) => {
      const created = await route.create(callerOf(request), request.body);
      return reply.status(201).send(envelope(request, route.present(created)));
    },
  );
}
