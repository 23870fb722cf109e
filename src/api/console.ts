/**
 * The administrator console (issue 37) and the security headers of every response.
 *
 * The console is a static single-page client of this same JSON API: `npm run build` bundles
 * `console/` (Preact, by Vite) into `dist/console`, which the image ships beside the compiled
 * modules. It is served under `/console` by `@fastify/static` — files by name, any other path
 * under `/console/` the page itself (it routes in the browser) — as public routes hidden from
 * `/openapi.json`: the page holds no data, everything it shows it asks the API for with the
 * session cookie. Without a build (a source checkout) `/console` answers 503 naming the command.
 *
 * Helmet's headers are on every response, API answers included, with a strict
 * Content-Security-Policy: only this origin's scripts, styles and connections, no inline script,
 * no eval, no framing. The `helmet` middleware is built once, when the app is; `@fastify/helmet`
 * built it anew for every request (its options parsed, the CSP rendered: ~50 µs of the API's
 * ~0.6 ms of CPU per `POST /namespaces`, issue 39).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import helmet from "helmet";
import fastifyStatic from "@fastify/static";
import { ServiceError } from "../services/errors.js";
import { fieldOf } from "../domain/input/unknowns.js";

/** Where `npm run build` puts the console: `<repository or /app>/dist/console`. */
export const CONSOLE_ASSETS = fileURLToPath(new URL("../../dist/console/", import.meta.url));

/** The Content-Security-Policy of every response. */
export const CONTENT_SECURITY_POLICY = {
  "default-src": ["'self'"],
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  "img-src": ["'self'", "data:"],
  "connect-src": ["'self'"],
  "font-src": ["'self'"],
  "object-src": ["'none'"],
  "base-uri": ["'self'"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'none'"],
} as const;

/** A file name the console's build writes: `index.html`, `assets/index-<hash>.js`, … */
const ASSET = /^(?:assets\/)?[A-Za-z0-9_.-]+\.(?:js|css|svg|png|ico|html|txt)$/;

/** Registers the security headers and the `/console` routes on `app`. */
export async function registerConsole(
  app: FastifyInstance,
  assets: string = CONSOLE_ASSETS,
): Promise<void> {
  const securityHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { ...CONTENT_SECURITY_POLICY } },
    // The API is also read by other origins' tools (curl, the CLI); browsers are kept to ours.
    crossOriginResourcePolicy: { policy: "same-origin" },
  });
  // On the raw response, before any route runs: the reply's own headers are added to these.
  app.addHook("onRequest", (request, reply, done) => {
    securityHeaders(request.raw, reply.raw, (err?: unknown) => {
      done(err instanceof Error ? err : undefined);
    });
  });
  const built = existsSync(`${assets}index.html`);
  if (built) {
    await app.register(fastifyStatic, { root: assets, serve: false, index: false });
  }
  const page = { config: { public: true }, schema: { hide: true } } as const;
  app.get("/console", page, async (_request, reply) => reply.redirect("/console/", 302));
  app.get("/console/*", page, async (request, reply) => {
    if (!built) {
      throw new ServiceError(
        "DEPENDENCY_UNAVAILABLE",
        "The console is not built: run `npm run build` (it writes dist/console).",
      );
    }
    const wildcard = fieldOf(request.params, "*");
    const path = typeof wildcard === "string" ? wildcard : "";
    if (ASSET.test(path) && existsSync(`${assets}${path}`)) {
      // Hashed names never change; the page itself is always asked for again.
      const immutable = path.startsWith("assets/");
      return reply.sendFile(path, {
        maxAge: immutable ? 31_536_000_000 : 0,
        immutable,
        cacheControl: true,
      });
    }
    return reply
      .header("cache-control", "no-cache")
      .sendFile("index.html", { cacheControl: false });
  });
}
