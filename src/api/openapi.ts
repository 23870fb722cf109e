/**
 * The OpenAPI 3.1 document, generated from the route schemas by @fastify/swagger and served at
 * `/openapi.json`. Nothing is written by hand: a route's schema is its documentation.
 */
import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { OpenApiDocumentSchema } from "../contract/health.js";

/** Registers the generator; must run before any route is added, to see them all. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    // Shared schemas become components named by their `$id` (`ErrorEnvelope`).
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === "string" ? json.$id : `def-${i}`,
    },
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "OCC control plane API",
        version: "0.1.0",
        description:
          "Places each platform Namespace (tenant) in exactly one Kubernetes namespace. Every response carries x-request-id; bodies are {data, meta} or {error, meta}.",
      },
      components: {
        securitySchemes: {
          apiKey: { type: "http", scheme: "bearer", description: "An OCC API key." },
          session: {
            type: "apiKey",
            in: "cookie",
            name: "occ_session",
            description:
              "A session from POST /auth/password (or single sign-on). A state-changing request with it must carry an Origin header equal to the console's origin (auth.baseUrl).",
          },
        },
      },
    },
  });
}

export const openApiRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.get(
    "/openapi.json",
    {
      config: { public: true },
      schema: {
        hide: true,
        response: { 200: OpenApiDocumentSchema },
      },
    },
    () => app.swagger() as { openapi: string },
  );
  done();
};
