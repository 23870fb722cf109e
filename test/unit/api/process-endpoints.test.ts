/**
 * Process endpoints and the OpenAPI document (control-plane.md §2): metrics labelled by route
 * pattern, an OpenAPI 3.1 document generated from every route's schemas, and the app options
 * that shape validation (the controller's own namespace is reserved).
 */
import { describe, expect, it } from "vitest";
import { NamespaceSchema } from "../../../src/contract/namespaces.js";
import { call, CONTROLLER_NAMESPACE, dataOf, errorOf, apiForFile } from "../../harness/api-app.js";

const fx = await apiForFile();

describe("process endpoints", () => {
  it("serves Prometheus metrics labelled by route pattern, never by ID", async () => {
    await call(fx.app, "GET", "/namespaces/ns_some-id", { key: fx.adminKey });
    const r = await call(fx.app, "GET", "/metrics");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^text\/plain/);
    expect(r.text).toContain(
      'occ_api_requests_total{method="GET",route="/namespaces/:id",status="404"}',
    );
    expect(r.text).not.toContain("ns_some-id");
  });

  it("serves an OpenAPI 3.1 document with every route and its response schemas", async () => {
    const r = await call(fx.app, "GET", "/openapi.json");
    expect(r.status).toBe(200);
    const doc = r.body as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.components.schemas)).toContain("ErrorEnvelope");
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
    expect(ops.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining([
        "post /namespaces",
        "get /namespaces",
        "get /namespaces/{id}",
        "delete /namespaces/{id}",
        "get /audit-events",
        "post /principals",
        "post /principals/{id}/api-keys",
        "delete /api-keys/{id}",
        "post /roles",
        "post /bindings",
        "post /restrictions",
        "get /healthz",
        "get /readyz",
        "get /metrics",
        "post /auth/password",
        "post /auth/logout",
        "get /auth/whoami",
        "get /auth/providers",
        "put /principals/{id}/password",
        "get /principals/{id}/sessions",
        "delete /sessions/{id}",
      ]),
    );
    for (const { op } of ops) {
      expect(Object.keys(op.responses).some((s) => s.startsWith("2"))).toBe(true);
    }
    const create = doc.paths["/namespaces"]?.post?.responses ?? {};
    expect(Object.keys(create)).toEqual(
      expect.arrayContaining(["201", "400", "401", "403", "409", "413", "415", "500", "503"]),
    );
  });

  it("refuses the controller's own namespace as a selection (the app option is honoured)", async () => {
    const r = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: { name: "own", existingNamespace: CONTROLLER_NAMESPACE },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r).error.details).toEqual([
      { path: "/body/existingNamespace", code: "reserved" },
    ]);
    const ok = await call(fx.app, "POST", "/namespaces", {
      key: fx.adminKey,
      body: { name: "theirs", existingNamespace: "team-theirs" },
    });
    expect(dataOf(ok, NamespaceSchema).existingNamespace).toBe("team-theirs");
  });
});
