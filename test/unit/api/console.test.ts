/**
 * The console's server side (issue 37): the page and its assets under /console (built by
 * `npm run build:console`, the real Vite build), the security headers on every response, no
 * console route in /openapi.json, whoami's Installation-wide permissions and the status filter
 * of GET /namespaces the console's pages use.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONSOLE_ASSETS } from "../../../src/api/console.js";
import { WhoAmISchema } from "../../../src/contract/auth.js";
import { NamespaceSchema } from "../../../src/contract/namespaces.js";
import { buildConsole } from "../../harness/console.js";
import { call, dataOf, errorOf, pageOf, principalWith, apiForFile } from "../../harness/api-app.js";

await buildConsole();
const fx = await apiForFile();

describe("the console under /console", () => {
  it("serves the page for any console path, and its hashed assets, with a strict CSP", async () => {
    expect(existsSync(`${CONSOLE_ASSETS}index.html`)).toBe(true);
    const bare = await call(fx.app, "GET", "/console");
    expect(bare.status).toBe(302);
    expect(bare.headers.location).toBe("/console/");
    for (const path of ["/console/", "/console/namespaces/ns_abc", "/console/installation"]) {
      const page = await call(fx.app, "GET", path);
      expect(page.status, path).toBe(200);
      expect(page.headers["content-type"]).toMatch(/^text\/html/);
      expect(page.text).toContain('<div id="app">');
      // No inline script: every <script> names its source.
      expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
    const page = await call(fx.app, "GET", "/console/");
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
    expect(script).toBeDefined();
    const asset = await call(fx.app, "GET", script ?? "");
    expect(asset.status).toBe(200);
    expect(asset.headers["content-type"]).toMatch(/javascript/);
    expect(asset.headers["cache-control"]).toContain("immutable");
    // Nothing outside the build is reachable, however the path is spelled.
    for (const path of [
      "/console/../package.json",
      "/console/%2e%2e/package.json",
      "/console/assets/..%2f..%2fpackage.json",
    ]) {
      const r = await call(fx.app, "GET", path);
      expect(r.text, path).not.toContain('"name": "occ"');
    }
  });

  it("sets the security headers on pages and API answers alike", async () => {
    for (const path of ["/console/", "/auth/providers", "/healthz", "/namespaces"]) {
      const r = await call(fx.app, "GET", path);
      const csp = String(r.headers["content-security-policy"]);
      expect(csp, path).toContain("default-src 'self'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).not.toContain("unsafe-inline");
      expect(csp, path).not.toContain("unsafe-eval");
      expect(r.headers["x-content-type-options"], path).toBe("nosniff");
      expect(r.headers["x-frame-options"], path).toBe("SAMEORIGIN");
      expect(r.headers["cross-origin-resource-policy"], path).toBe("same-origin");
    }
  });

  it("keeps the console out of the API's description", async () => {
    const doc = (await call(fx.app, "GET", "/openapi.json")).body as { paths: object };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/console"))).toEqual([]);
  });
});

describe("what the console asks the API", () => {
  it("whoami names the Installation-wide permissions the caller holds", async () => {
    const admin = dataOf(
      await call(fx.app, "GET", "/auth/whoami", { key: fx.adminKey }),
      WhoAmISchema,
    );
    expect(admin.installationPermissions).toEqual(["installation:administer", "namespace:create"]);
    const reader = await principalWith(fx, "console-reader", [
      { action: "read", kind: "namespace" },
    ]);
    const seen = dataOf(
      await call(fx.app, "GET", "/auth/whoami", { key: reader.key }),
      WhoAmISchema,
    );
    expect(seen.installationPermissions).toEqual([]);
    // What the console hides, the API refuses.
    const forged = await call(fx.app, "POST", "/namespaces", {
      key: reader.key,
      body: { name: "forged" },
    });
    expect(forged.status).toBe(403);
    expect(errorOf(forged).error.code).toBe("FORBIDDEN");
  });

  it("GET /namespaces?status= lists one status only, and refuses an unknown one", async () => {
    const all = pageOf(
      await call(fx.app, "GET", "/namespaces?limit=1000", { key: fx.adminKey }),
      NamespaceSchema,
    );
    expect(all.items.length).toBeGreaterThan(0);
    for (const status of ["ready", "provisioning"] as const) {
      const page = pageOf(
        await call(fx.app, "GET", `/namespaces?status=${status}&limit=1000`, { key: fx.adminKey }),
        NamespaceSchema,
      );
      expect(page.items.map((n) => n.id)).toEqual(
        all.items.filter((n) => n.status === status).map((n) => n.id),
      );
    }
    const bad = await call(fx.app, "GET", "/namespaces?status=sleeping", { key: fx.adminKey });
    expect(bad.status).toBe(400);
  });
});
