/**
 * Unknown routes (404) and known paths asked with a method they do not serve (405, with an
 * `Allow` header), both in the error envelope. Fastify answers both with its 404 handler, so
 * this module remembers every route's path pattern as it is registered and tells them apart.
 */
import type { FastifyInstance } from "fastify";
import { ServiceError } from "../services/errors.js";
import { sendError } from "./error-handler.js";

interface KnownRoute {
  readonly pattern: RegExp;
  readonly methods: Set<string>;
}

function patternOf(url: string): RegExp {
  const parts = url
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  return new RegExp(`^${parts.join("/")}$`);
}

/** Records routes (call before any route is added) and installs the not-found handler. */
export function registerNotFound(app: FastifyInstance): void {
  const routes = new Map<string, KnownRoute>();
  app.addHook("onRoute", (route) => {
    const known = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set() };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) known.methods.add(m.toUpperCase());
    routes.set(route.url, known);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?", 1)[0] ?? "";
    const allowed = new Set<string>();
    for (const route of routes.values()) {
      if (route.pattern.test(path)) for (const m of route.methods) allowed.add(m);
    }
    // A served method that still landed here was refused by the router itself (a parameter
    // longer than the router accepts): no such resource.
    if (allowed.size === 0 || allowed.has(request.method)) {
      return sendError(
        request,
        reply,
        new ServiceError("NOT_FOUND", "No route matches this path."),
      );
    }
    void reply.header("allow", [...allowed].sort().join(", "));
    return sendError(
      request,
      reply,
      new ServiceError(
        "METHOD_NOT_ALLOWED",
        `${request.method} is not allowed here; use ${[...allowed].sort().join(", ")}.`,
      ),
    );
  });
}
