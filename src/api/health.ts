/**
 * Process endpoints without tenant data and without authentication (control-plane.md §2):
 * `/healthz` (the process answers), `/readyz` (the database answers and carries every
 * migration of this release), `/metrics`
 * (Prometheus text from the app's registry) — and the HTTP metrics `/metrics` serves, on a
 * registry the process owns (the worker adds its own metrics to the same registry when both
 * run in one process). Labels are route *patterns*, never concrete paths, so IDs do not leak
 * into metrics and cardinality stays bounded.
 */
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Counter, Histogram, type Registry } from "prom-client";
import type { Db, RequiredSchema } from "../services/handles.js";
import { checkReadiness } from "../services/operations/readiness.js";
import { envelope } from "./request-context.js";
import { DataEnvelope } from "../contract/envelopes.js";
import { MetricsTextSchema, StatusSchema } from "../contract/health.js";
import { noSecurity, op, publicErrorResponses, type ApiTag } from "./schemas.js";

const tags: ApiTag[] = ["health"];

export interface HealthRoutesOptions {
  readonly db: Db;
  readonly registry: Registry;
  /** How long `/readyz` waits for the database. */
  readonly readinessTimeoutMs?: number;
  /**
   * The migrations this release needs; given, `/readyz` also answers 503
   * `DATABASE_SCHEMA_OUTDATED` while the database lacks one (e.g. restored from a backup).
   */
  readonly schema?: RequiredSchema | undefined;
}

export const healthRoutes: FastifyPluginCallbackTypebox<HealthRoutesOptions> = (
  app,
  opts,
  done,
) => {
  const config = { public: true };
  app.get(
    "/healthz",
    {
      config,
      schema: {
        tags,
        security: noSecurity,
        ...op(
          "getLiveness",
          "Liveness probe",
          "Answers 200 while the process serves HTTP; reads nothing. Public.",
        ),
        response: { 200: DataEnvelope(StatusSchema), ...publicErrorResponses() },
      },
    },
    (request) => envelope(request, { status: "ok" }),
  );

  app.get(
    "/readyz",
    {
      config,
      schema: {
        tags,
        security: noSecurity,
        ...op(
          "getReadiness",
          "Readiness probe",
          "Answers 200 when the database answers and has every migration this release needs; 503 otherwise. Public.",
        ),
        response: { 200: DataEnvelope(StatusSchema), ...publicErrorResponses() },
      },
    },
    async (request) => {
      await checkReadiness(opts.db, opts.schema, opts.readinessTimeoutMs ?? 2_000);
      return envelope(request, { status: "ready" });
    },
  );

  app.get(
    "/metrics",
    {
      config,
      schema: {
        tags,
        security: noSecurity,
        ...op(
          "getMetrics",
          "Prometheus metrics",
          "The process's metrics in the Prometheus text exposition format. Public.",
        ),
        response: {
          ...publicErrorResponses(),
          200: {
            description: "Prometheus text exposition format.",
            content: { "text/plain": { schema: MetricsTextSchema } },
          },
        },
      },
    },
    async (_request, reply) => {
      const text = await opts.registry.metrics();
      return reply.type(opts.registry.contentType).send(text);
    },
  );
  done();
};

/** Counts and times every response on `registry`. */
export function registerHttpMetrics(app: FastifyInstance, registry: Registry): void {
  const requests = new Counter({
    name: "occ_api_requests_total",
    help: "HTTP requests answered by the OCC API, by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "occ_api_request_duration_seconds",
    help: "Time to answer an HTTP request, by method and route pattern.",
    labelNames: ["method", "route"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook("onResponse", async (request, reply) => {
    const route = request.is404 ? "unmatched" : (request.routeOptions.url ?? "unmatched");
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
}
